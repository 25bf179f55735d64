// File: tf_costs.h
// Measured op times from a TensorFlow RunMetadata, StepStats or
// CostGraphDef file (binary, or text for ".pbtxt"), per node name and
// device kind. Private to the TensorFlow importer.
//
// Which of the three the file holds is not written in it (a binary
// protobuf carries no type): each is tried, and the one whose records name
// the most nodes of the graph wins (in text, only the right one parses).
// - StepStats (also a RunMetadata's step_stats): per node, op_end_rel -
//   op_start_rel (nanoseconds when recorded, else microseconds) on the
//   device kind of its DeviceStepStats. A GPU's "/stream:all" records (the
//   kernels' run times, from TensorFlow's GPU tracer) replace the
//   launching thread's records of the same nodes; per-stream
//   ("/stream:N") and "/memcpy" records repeat them and are skipped.
//   Several records of one node on one kind add up.
// - CostGraphDef (also a RunMetadata's cost_graph, used when it has no
//   step_stats): compute_cost microseconds (compute_time when
//   compute_cost is 0) on the kind of the node's device.
#pragma once

#include <array>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

struct TfMeasuredCosts {
  // Seconds per node and device kind; negative: not measured on that kind.
  std::unordered_map<std::string, std::array<double, kNumDeviceKinds>> seconds;
  std::string kind;            // "RunMetadata (step_stats)", "StepStats", "CostGraphDef", ...
  int unmatched_nodes = 0;     // timed names that are no node of the graph (TensorFlow's _SOURCE, _SINK, ...)
  std::string first_unmatched;
  int unknown_devices = 0;     // records whose device is neither a CPU nor a GPU
};

// `nodes`: the graph's node names; `graph_source` names the graph in errors.
// Errors: "costs.pb: not a TensorFlow RunMetadata, StepStats or
// CostGraphDef (...)", "costs.pb: none of its N timed nodes is a node of
// model.pb (e.g. 'x'): the costs of another graph?".
Result<TfMeasuredCosts> read_tf_costs(const std::string& path, const std::unordered_set<std::string>& nodes,
                                      const std::string& graph_source);

}  // namespace devplace
