// File: placer_options.cc
// --budget, --evaluations, --seed and --grouping (see placer_options.h).
#include "cli/placer_options.h"

#include <charconv>
#include <cmath>

namespace devplace::cli {

std::vector<OptionSpec> with_placer_options(std::vector<OptionSpec> options) {
  options.push_back({"budget", "SECONDS", "search time per method (a time limit: results may vary between runs)"});
  options.push_back({"evaluations", "N", "most simulated steps per method (default: the method's own, 5000 for local-search)"});
  options.push_back({"seed", "N", "seed for randomized methods (default 1)"});
  options.push_back({"grouping", "KIND", "what placers assign: paper (merged chains, default) or colocation"});
  return options;
}

Result<PlacerRunOptions> placer_run_options(const Args& args) {
  PlacerRunOptions options;
  if (auto text = args.get("budget")) {
    double seconds = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), seconds);
    if (ec != std::errc() || ptr != text->data() + text->size() || !std::isfinite(seconds) || seconds <= 0)
      return invalid_input("--budget: expected a positive number of seconds, got '" + *text + "'");
    options.budget.seconds = seconds;
  }
  if (auto text = args.get("evaluations")) {
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
    if (ec != std::errc() || ptr != text->data() + text->size() || n <= 0)
      return invalid_input("--evaluations: expected a positive integer, got '" + *text + "'");
    options.budget.evaluations = n;
  }
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t seed, args.get_int_or("seed", 1));
  options.seed = static_cast<uint64_t>(seed);
  if (auto text = args.get("grouping")) {
    Result<GroupingKind> kind = parse_grouping_kind(*text);
    if (!kind.ok()) return kind.error().with_prefix("--grouping");
    options.grouping.kind = kind.value();
  }
  return options;
}

}  // namespace devplace::cli
