// File: measured_cost_model.cc
// Measured op times with a fallback (see measured_cost_model.h).
#include "cost/measured_cost_model.h"

namespace devplace {

double MeasuredCostModel::op_time_s(const Graph& graph, OpId id, const Device& device) const {
  const Op& op = graph.op(id);
  if (!op.has_measured_time(device.kind)) return fallback_->op_time_s(graph, id, device);
  const double measured = op.measured_time_s[static_cast<int>(device.kind)];
  const MeasuredOn& on = graph.measured_on(device.kind);
  if (!on.known() || (on.peak_flops == device.peak_flops && on.memory_bandwidth_bytes_per_s == device.memory_bandwidth_bytes_per_s))
    return measured;
  // Another device of the kind: the measured time times the ratio of the
  // op's roofline times on it and on the device that measured it (a
  // compute-bound op scales with peak FLOPs, a memory-bound one with the
  // bandwidth; the launch cost, in both, damps the ratio of tiny ops).
  Device reference = device;
  reference.peak_flops = on.peak_flops;
  reference.memory_bandwidth_bytes_per_s = on.memory_bandwidth_bytes_per_s;
  const double there = fallback_->op_time_s(graph, id, reference);
  if (!(there > 0)) return measured;
  return measured * fallback_->op_time_s(graph, id, device) / there;
}

}  // namespace devplace
