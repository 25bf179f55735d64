// File: local_updates.h
// LocalUpdates: the UpdateSource of a one-process run. Each update samples
// K placements (fewer when the budget has fewer left, at least 2), scores
// them with the context's evaluator, and takes options.epochs clipped
// policy-gradient steps on them (plus the self-imitation of the elites).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <torch/torch.h>

#include "group/grouping.h"
#include "place/placer.h"
#include "rl/placement_policy.h"
#include "rl/reinforce.h"
#include "rl/training_state.h"
#include "rl/update_source.h"

namespace devplace::rl {

class LocalUpdates : public UpdateSource {
 public:
  // All are borrowed for the source's life.
  LocalUpdates(PlacementPolicy& policy, torch::optim::Optimizer& optimizer, const Grouping& units, const PlaceContext& ctx,
               const ReinforceOptions& options, TrainState& state, uint64_t seed_base, std::string_view method);

  bool can_update(int64_t left) const override { return samples_for(left) > 0; }
  Result<UpdateOutcome> update(int64_t it, int64_t left, double entropy_weight, double temperature) override;
  std::string label() const override { return method_; }

 private:
  // K, or what `left` allows (at least 2, so that samples can be compared), or 0.
  int64_t samples_for(int64_t left) const;

  PlacementPolicy& policy_;
  torch::optim::Optimizer& optimizer_;
  const Grouping& units_;
  const PlaceContext& ctx_;
  const ReinforceOptions& options_;
  TrainState& state_;
  uint64_t seed_base_;
  std::string method_;
  std::vector<double> times_, costs_;
  std::vector<bool> valid_;
};

}  // namespace devplace::rl
