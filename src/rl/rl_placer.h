// File: rl_placer.h
// RlPlacer ("rl"): the paper's method. A seq2seq policy (policy.h) over the
// groups proposes placements; REINFORCE on their evaluated step times trains
// it (Mirhoseini et al. 2017, section 3):
// - K placements sampled per update (default 8);
// - reward R = sqrt(step time), minimised, against an exponential moving
//   average baseline (decay 0.9); a placement that runs out of memory or
//   fails counts as 100 s;
// - Adam, gradients clipped to global norm 1;
// - Gaussian noise on the logits for the first half of training.
// The answer is the better of the best placement ever evaluated and the
// policy's greedy decode at the end. Same seed, same placement.
//
// This header has no torch in it, so place/registry.cc can name the placer.
#pragma once

#include <cstdint>
#include <memory>

#include "place/placer.h"

namespace devplace::rl {

struct RlOptions {
  int64_t samples_per_update = 8;         // K
  int64_t default_iterations = 60;        // without a budget
  double learning_rate = 0.01;
  double baseline_decay = 0.9;
  double failed_step_time_s = 100.0;      // OOM or failed placement
  double initial_noise = 0.5;             // logit noise, falling to 0 at half of training
  int hidden = 64;
};

class RlPlacer : public Placer {
 public:
  explicit RlPlacer(const RlOptions& options = {}) : options_(options) {}
  std::string_view name() const override { return "rl"; }
  Result<Placement> place(const PlaceContext& context) override;

 private:
  RlOptions options_;
};

std::unique_ptr<Placer> make_rl_placer();

}  // namespace devplace::rl
