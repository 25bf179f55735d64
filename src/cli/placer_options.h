// File: placer_options.h
// The options every command that runs a placer shares (place, compare,
// simulate --placement METHOD): --budget, --evaluations, --seed, --grouping,
// and the training options of the learned placers.
// Declared and read here once, so the commands agree on names, defaults and
// error messages.
#pragma once

#include <cstdint>
#include <vector>

#include "cli/args.h"
#include "common/status.h"
#include "place/run_placer.h"

namespace devplace::cli {

// `options` followed by the placer options' specs.
std::vector<OptionSpec> with_placer_options(std::vector<OptionSpec> options);

// Reads the placer options: --budget SECONDS (> 0), --evaluations N (> 0),
// --seed N (default 1), with neither limit given each search placer uses its
// own evaluation count (local-search: 5000), so results repeat for a seed;
// --grouping paper|colocation (default paper). The learned placers' options
// fill `training`: --iterations N, --checkpoint-every N (default 10) and
// --threads N (default 1), each > 0; --training-log FILE, --checkpoint FILE,
// --resume FILE (which must exist); --warm-start search|fast|none,
// --learning-rate X, --samples K, --epochs N, --entropy-weight X,
// --policy-hidden N, --attention additive|multiplicative;
// the progress bar is on when stderr is a
// terminal. An error is one line naming the flag (exit code 2).
Result<PlacerRunOptions> placer_run_options(const Args& args);

// The largest --iterations / --checkpoint-every and --threads accepted.
inline constexpr int64_t kMaxIterations = 100'000'000;
inline constexpr int64_t kMaxThreads = 1024;
inline constexpr int64_t kMaxPolicyHidden = 4096;
inline constexpr int64_t kMaxSamples = 4096;
inline constexpr int64_t kMaxEpochs = 100;

}  // namespace devplace::cli
