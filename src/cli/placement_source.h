// File: placement_source.h
// Resolves the --placement argument: a placement file (JSON or CSV), or the
// name of a placement method, which is run on the spot with the simulator.
#pragma once

#include <string>

#include "common/status.h"
#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace::cli {

struct ResolvedPlacement {
  Placement placement;
  std::string label;  // the method name or the file path
};

Result<ResolvedPlacement> resolve_placement(const std::string& spec, const Problem& problem, uint64_t seed);

}  // namespace devplace::cli
