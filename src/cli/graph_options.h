// File: graph_options.h
// The graph-loading options the commands share (--training, --optimizer).
#pragma once

#include "cli/args.h"
#include "common/status.h"
#include "io/graph_source.h"

namespace devplace::cli {

// Reads --training and --optimizer (if the command declares them).
Result<GraphLoadOptions> graph_load_options(const Args& args);

}  // namespace devplace::cli
