// File: measured_cost_model.h
// MeasuredCostModel: an op's measured time for the device's kind (from a
// profile or tools/export_torch.py), taken whole: a measured time already
// contains the launch cost, so nothing is added. When the graph says which
// device measured its times of that kind (Graph::measured_on) and the device
// asked about has another peak or bandwidth, the time is scaled by the ratio
// of the fallback's (the roofline's) times for the op on the two devices.
// Ops with no measurement for that kind fall back to the other model.
#pragma once

#include <memory>

#include "cost/cost_model.h"

namespace devplace {

class MeasuredCostModel : public CostModel {
 public:
  // Not owned by the caller afterwards: the model keeps `fallback`.
  explicit MeasuredCostModel(std::unique_ptr<CostModel> fallback) : fallback_(std::move(fallback)) {}
  std::string_view name() const override { return "measured"; }
  double op_time_s(const Graph& graph, OpId op, const Device& device) const override;

 private:
  std::unique_ptr<CostModel> fallback_;
};

}  // namespace devplace
