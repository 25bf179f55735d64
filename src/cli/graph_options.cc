// File: graph_options.cc
// --training and --optimizer.
#include "cli/graph_options.h"

namespace devplace::cli {

Result<GraphLoadOptions> graph_load_options(const Args& args) {
  GraphLoadOptions load;
  load.training = args.flag("training");
  if (auto o = args.get("optimizer")) {
    std::optional<Optimizer> parsed = parse_optimizer(*o);
    if (!parsed) return invalid_input("--optimizer: expected sgd, momentum or adam, got '" + *o + "'");
    load.optimizer = *parsed;
  }
  return load;
}

}  // namespace devplace::cli
