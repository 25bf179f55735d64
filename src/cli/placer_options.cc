// File: placer_options.cc
// --budget, --evaluations, --seed, --grouping and the options the methods
// declare (see placer_options.h).
#include "cli/placer_options.h"

#include <charconv>
#include <cmath>
#include <memory>
#include <system_error>

#include "place/run_placer.h"
#include "rl/rl_library.h"

namespace devplace::cli {

std::vector<OptionSpec> with_placer_options(std::vector<OptionSpec> options) {
  // The commands' specs are built before main(): the learned placers must
  // be in the registry by then (registering is idempotent).
  register_learned_placers();
  options.push_back({"budget", "SECONDS", "search time per method (a time limit: results may vary between runs)"});
  options.push_back({"evaluations", "N", "most simulated steps per method (default: the method's own, 5000 for local-search)"});
  options.push_back({"seed", "N", "seed for randomized methods (default 1)"});
  options.push_back({"grouping", "KIND", "what placers assign: paper (merged chains, default) or colocation"});
  // The options of the methods that declare some (the learned placers'),
  // once each, in registry order, under a heading naming the methods that
  // take them.
  for (const PlacerInfo& info : placer_registry()) {
    for (const MethodOptionSpec& spec : info.options) {
      bool seen = false;
      for (const OptionSpec& known : options) seen = seen || known.name == spec.name;
      if (seen) continue;
      std::string takers;
      for (const PlacerInfo& other : placer_registry()) {
        for (const MethodOptionSpec& o : other.options) {
          if (o.name == spec.name) takers += (takers.empty() ? "" : ", ") + std::string(other.name);
        }
      }
      options.push_back({spec.name, spec.value, spec.help, false, spec.output, "options of the methods " + takers});
    }
  }
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
  for (const PlacerInfo& info : placer_registry()) {
    for (const MethodOptionSpec& spec : info.options) {
      if (auto value = args.get(spec.name)) options.method_options[spec.name] = *value;
    }
  }
  return options;
}

std::string method_option(const PlacerRunOptions& options, const std::string& name) {
  auto it = options.method_options.find(name);
  return it == options.method_options.end() ? std::string() : it->second;
}

Status check_method_options(const std::vector<std::string>& methods, const PlacerRunOptions& options) {
  for (const std::string& method : methods) {
    Result<std::unique_ptr<Placer>> placer = make_configured_placer(method, options.method_options);
    if (!placer.ok()) return placer.error();
  }
  for (const auto& [name, value] : options.method_options) {
    bool applies = false;
    for (const PlacerInfo& info : placer_registry()) {
      bool runs = false;
      for (const std::string& method : methods) runs = runs || info.name == method;
      for (const MethodOptionSpec& spec : info.options) applies = applies || (runs && spec.name == name);
    }
    if (applies) continue;
    if (methods.empty()) return invalid_input("--" + name + " does not apply: no placement method runs");
    std::string list;
    for (const std::string& method : methods) list += (list.empty() ? "" : ", ") + method;
    return invalid_input("--" + name + " does not apply to " + (methods.size() == 1 ? "--method " : "the methods run (") + list +
                         (methods.size() == 1 ? "" : ")"));
  }
  return Status::ok_status();
}

}  // namespace devplace::cli
