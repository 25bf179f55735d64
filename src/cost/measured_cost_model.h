// File: measured_cost_model.h
// MeasuredCostModel: an op's measured time for the device's kind (from a
// profile or tools/export_torch.py), taken whole: a measured time already
// contains the launch cost, so nothing is added. Ops with no measurement for
// that kind fall back to another model (the roofline).
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
