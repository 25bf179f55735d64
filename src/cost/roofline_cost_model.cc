// File: roofline_cost_model.cc
// Roofline op times (model and constants in roofline_cost_model.h).
#include "cost/roofline_cost_model.h"

#include <algorithm>

#include "graph/op_types.h"

namespace devplace {

int64_t RooflineCostModel::memory_traffic_bytes(const Graph& graph, OpId id) {
  const Op& op = graph.op(id);
  if (op.memory_traffic_bytes >= 0) return op.memory_traffic_bytes;
  int64_t bytes = op.parameter_bytes + op.optimizer_state_bytes;
  for (TensorId t : op.inputs) bytes += graph.tensor(t).bytes;
  for (TensorId t : op.outputs) bytes += graph.tensor(t).bytes;
  return bytes;
}

double RooflineCostModel::op_time_s(const Graph& graph, OpId id, const Device& device) const {
  const Op& op = graph.op(id);
  double compute_fraction = options_.other_compute_fraction;
  if (is_contraction_op_type(op.type)) {
    compute_fraction = device.kind == DeviceKind::kGpu ? options_.gpu_contraction_compute_fraction
                                                       : options_.cpu_contraction_compute_fraction;
  }
  const double compute_s = op.flops / (device.peak_flops * compute_fraction);
  const double memory_s =
      static_cast<double>(memory_traffic_bytes(graph, id)) / (device.memory_bandwidth_bytes_per_s * options_.memory_fraction);
  return device.launch_overhead_s + std::max(compute_s, memory_s);
}

}  // namespace devplace
