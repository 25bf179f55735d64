// File: tf_graphdef_writer.h
// Writes a placement back into the TensorFlow GraphDef it was made for:
// the original file (binary .pb or text .pbtxt), every field and attr as it
// was, with each node's device field set to the TensorFlow device string of
// its op's placement ("/device:GPU:1", "/device:CPU:0"), so that
// TensorFlow runs the graph where devplace placed it.
#pragma once

#include <string>

#include "cluster/cluster.h"
#include "common/status.h"
#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace {

// Whether an output path asks for a GraphDef (".pb", ".graphdef", ".pbtxt").
bool is_tf_graphdef_output(const std::string& path);

// Before any work: `graph_spec` is a GraphDef file, and, for a text
// `out_path`, one without fields outside devplace's subset (text cannot keep
// them). "--out placed.pb: writes a TensorFlow GraphDef, but the graph
// 'zoo:rnnlm' is not one (give --graph model.pb or .pbtxt, or write .json/.csv)".
Status check_tf_graphdef_output(const std::string& flag, const std::string& out_path, const std::string& graph_spec);

// The TensorFlow device string of a cluster device: "/device:GPU:N" for
// devplace's "/gpu:N" ("/device:CPU:N" for "/cpu:N"); a device named
// otherwise gets its position among the cluster's devices of its kind.
std::string tf_device_string(const Cluster& cluster, DeviceId device);

// Reads `graph_path` again and writes it to `out_path` (atomically) with
// the devices of `placement`. Every node must be an op of the problem's graph.
Status write_tf_graphdef_placement(const std::string& out_path, const std::string& graph_path, const Problem& problem,
                                   const Placement& placement);

}  // namespace devplace
