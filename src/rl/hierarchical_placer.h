// File: hierarchical_placer.h
// The hierarchical planner ("hierarchical"; Mirhoseini et al., ICLR 2018):
// a learned grouper and the seq2seq placer of the rl method, trained
// jointly by REINFORCE (hierarchical_policy.h, reinforce.h) over the
// graph's co-location groups, so that no hand-made grouping is needed. It
// ignores the context's grouping. Same seed, same placement.
//
// This header has no torch in it. rl_library.h registers the placer under
// its name; tests may make it directly.
#pragma once

#include <memory>

#include "place/placer.h"
#include "rl/training_options.h"

namespace devplace::rl {

std::unique_ptr<Placer> make_hierarchical_placer(const TrainingRunOptions& training = {});

}  // namespace devplace::rl
