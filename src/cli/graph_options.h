// File: graph_options.h
// The graph-loading options the commands share (--training, --optimizer, --input-shape, --tf-costs).
#pragma once

#include <string_view>
#include <vector>

#include "cli/args.h"
#include "common/status.h"
#include "io/graph_source.h"

namespace devplace::cli {

// `options` followed by the graph-loading options every command that reads
// a graph takes: --training, --optimizer, --input-shape, --tf-costs.
std::vector<OptionSpec> with_graph_load_options(std::vector<OptionSpec> options);
// Reads --training, --optimizer, --input-shape and --tf-costs (if the command declares them).
Result<GraphLoadOptions> graph_load_options(const Args& args);
// "x=1x3x224x224,mask=1x128": each input's name and dimensions.
Result<InputShapes> parse_input_shapes(std::string_view text);

}  // namespace devplace::cli
