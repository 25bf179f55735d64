// File: placer_options.h
// The options every command that runs a placer shares (place, compare,
// simulate --placement METHOD): --budget, --evaluations, --seed, --grouping,
// and the options the methods declare themselves (the learned placers'
// training options, rl/training_options.h).
// Declared and read here once, so the commands agree on names, defaults and
// error messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/args.h"
#include "common/status.h"
#include "place/run_placer.h"

namespace devplace::cli {

// `options` followed by the placer options' specs: the shared ones, then
// those the registered methods declare (PlacerInfo::options).
std::vector<OptionSpec> with_placer_options(std::vector<OptionSpec> options);

// Reads the placer options: --budget SECONDS (> 0), --evaluations N (> 0),
// --seed N (default 1), with neither limit given each search placer uses its
// own evaluation count (local-search: 5000), so results repeat for a seed;
// --grouping paper|colocation (default paper). The values of the methods'
// own options go to method_options unread: check_method_options reads them.
// An error is one line naming the flag (exit code 2).
Result<PlacerRunOptions> placer_run_options(const Args& args);

// Before any work: each method in `methods` accepts the method options
// given (its configure() reads them), and each option given applies to at
// least one of them ("--checkpoint does not apply to --method expert").
Status check_method_options(const std::vector<std::string>& methods, const PlacerRunOptions& options);

// The value of the method option `name` (without "--"); "" when not given.
std::string method_option(const PlacerRunOptions& options, const std::string& name);

}  // namespace devplace::cli
