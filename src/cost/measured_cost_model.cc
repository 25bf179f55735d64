// File: measured_cost_model.cc
// Measured op times with a fallback (see measured_cost_model.h).
#include "cost/measured_cost_model.h"

namespace devplace {

double MeasuredCostModel::op_time_s(const Graph& graph, OpId id, const Device& device) const {
  const Op& op = graph.op(id);
  if (op.has_measured_time(device.kind)) return op.measured_time_s[static_cast<int>(device.kind)];
  return fallback_->op_time_s(graph, id, device);
}

}  // namespace devplace
