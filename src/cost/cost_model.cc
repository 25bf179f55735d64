// File: cost_model.cc
// The alpha-beta transfer cost and the default cost model.
#include "cost/cost_model.h"

#include "cost/measured_cost_model.h"
#include "cost/roofline_cost_model.h"

namespace devplace {

TransferCost CostModel::transfer_cost(const Route& route) const {
  if (route.channels.empty()) return {};
  return {route.latency_s, 1.0 / route.bandwidth_bytes_per_s};
}

std::unique_ptr<CostModel> make_default_cost_model() {
  return std::make_unique<MeasuredCostModel>(std::make_unique<RooflineCostModel>());
}

}  // namespace devplace
