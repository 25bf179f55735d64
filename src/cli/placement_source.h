// File: placement_source.h
// Resolves the --placement argument: a placement file (JSON or CSV), or the
// name of a placement method, which is run on the spot with the simulator.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "place/run_placer.h"
#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace::cli {

struct ResolvedPlacement {
  Placement placement;
  std::string label;  // the method name or the file path
};

// A method is run with the simulator as its evaluator, under `options`.
Result<ResolvedPlacement> resolve_placement(const std::string& spec, const Problem& problem,
                                            const PlacerRunOptions& options);

// The specs that resolve_placement would run as methods (names of placers
// that are not files), for check_method_options before the work starts.
std::vector<std::string> placement_methods(const std::vector<std::string>& specs);

}  // namespace devplace::cli
