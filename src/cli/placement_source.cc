// File: placement_source.cc
// --placement: a file or a method name.
#include "cli/placement_source.h"

#include <filesystem>

#include "io/placement_file.h"
#include "place/placer.h"
#include "sim/simulator.h"

namespace devplace::cli {

namespace {

bool is_method(const std::string& spec) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(spec, ec)) return false;
  for (const PlacerInfo& info : placer_registry()) {
    if (info.name == spec) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> placement_methods(const std::vector<std::string>& specs) {
  std::vector<std::string> methods;
  for (const std::string& spec : specs) {
    if (is_method(spec)) methods.push_back(spec);
  }
  return methods;
}

Result<ResolvedPlacement> resolve_placement(const std::string& spec, const Problem& problem,
                                            const PlacerRunOptions& options) {
  std::error_code ec;
  const bool is_file = std::filesystem::is_regular_file(spec, ec);
  if (!is_file) {
    for (const PlacerInfo& info : placer_registry()) {
      if (info.name != spec) continue;
      Simulator sim(problem);
      DEVPLACE_ASSIGN_OR_RETURN(PlacerRun run, run_placer(spec, problem, sim, options));
      return ResolvedPlacement{std::move(run.placement), spec};
    }
    if (spec.find('.') == std::string::npos && spec.find('/') == std::string::npos) {
      std::string known;
      for (const PlacerInfo& info : placer_registry()) known += (known.empty() ? "" : ", ") + std::string(info.name);
      return not_found("--placement '" + spec + "': no such file, and no such method (known: " + known + ")");
    }
  }
  DEVPLACE_ASSIGN_OR_RETURN(Placement p, read_placement_file(spec, problem));
  return ResolvedPlacement{std::move(p), spec};
}

}  // namespace devplace::cli
