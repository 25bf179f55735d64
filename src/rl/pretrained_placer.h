// File: pretrained_placer.h
// PretrainedPlacer ("pretrained"): places with a portable policy trained
// beforehand on other graphs (`devplace pretrain`, portable_policy.h), with
// no training: its greedy placement and the best of --samples K samples
// (default 63, or 15 for a grouping of more than 1,500 groups, where the
// decode takes seconds), 1 + K evaluations in all (fewer under a smaller
// evaluation budget). The policy file is --policy FILE, else the shipped one
// (shipped_policy_path). Same seed, same placement.
//
// This header has no torch in it.
#pragma once

#include <memory>

#include "place/placer.h"
#include "rl/training_options.h"

namespace devplace::rl {

std::unique_ptr<Placer> make_pretrained_placer(const TrainingRunOptions& options = {});

// The file a --policy or --init value names: "" and "pretrained" are the
// shipped file (an error when none is found), anything else is a path.
Result<std::string> resolve_policy_path(const std::string& value, const char* flag);

}  // namespace devplace::rl
