// File: rl_placer.h
// RlPlacer ("rl"): the paper's method (Mirhoseini et al. 2017). The seq2seq
// policy of policy.h proposes a device for every group of the grouping
// (the paper's, by default); REINFORCE on the evaluated step times trains
// it (reinforce.h: K samples per update, reward sqrt(step time) against a
// moving-average baseline, OOM = 100 s, Adam with clipping, logit noise
// early on). The answer is the best placement evaluated, the policy's
// greedy decode included. Same seed, same placement.
//
// This header has no torch in it. rl_library.h registers the placer under
// its name; tests may make it directly.
#pragma once

#include <memory>

#include "place/placer.h"
#include "rl/training_options.h"

namespace devplace::rl {

std::unique_ptr<Placer> make_rl_placer(const TrainingRunOptions& training = {});

}  // namespace devplace::rl
