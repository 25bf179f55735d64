// File: placer_options.h
// The options every command that runs a placer shares (place, compare,
// simulate --placement METHOD): --budget, --evaluations, --seed, --grouping.
// Declared and read here once, so the commands agree on names, defaults and
// error messages.
#pragma once

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
// --grouping paper|colocation (default paper). An error is one line naming the flag.
Result<PlacerRunOptions> placer_run_options(const Args& args);

}  // namespace devplace::cli
