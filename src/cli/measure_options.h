// File: measure_options.h
// --measure "COMMAND" and its options, shared by place and compare: with it
// an external measurer (docs/measurer.md) scores placements instead of the
// simulator.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "common/json_reader.h"
#include "common/status.h"
#include "measure/measurer.h"
#include "sim/problem.h"

namespace devplace::cli {

// `options` followed by --measure and the --measure-* specs.
std::vector<OptionSpec> with_measure_options(std::vector<OptionSpec> options);

// The measurer's options when --measure is given, else nullopt. The graph
// source sent to the measurer is `graph_source` made absolute when it names
// a file. Errors name the flag (exit code 2).
Result<std::optional<MeasurerOptions>> measurer_options(const Args& args, const std::string& graph_source);

// The measurer's name and counts, as place --json and calibrate --json print them.
json::Json measurer_json(const Measurer& measurer);

}  // namespace devplace::cli
