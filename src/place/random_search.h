// File: random_search.h
// RandomSearchPlacer ("random-search"): the best, by search_cost_s, of
// uniformly random placements, each group on a device drawn uniformly from
// those it may use (as "random" draws one). Not in the papers: it is the
// control that a guided search (local-search, rl, hierarchical) must beat at
// the same number of evaluations (`devplace compare` gives them all one).
//
// It makes the budget's evaluations, or kDefaultEvaluations without any
// limit, which is deterministic for a seed; a budget in seconds stops by the
// clock. At least one placement is drawn and scored. Repeats are scored
// again (no cache), so each evaluation is one independent draw, and a run
// with more evaluations sees the same draws first: with the same seed it is
// never worse. Any placement that fits ranks above every one that runs out
// of memory, so it never returns an OOM placement when it drew one that fits.
#pragma once

#include <cstdint>

#include "place/placer.h"

namespace devplace {

class RandomSearchPlacer : public Placer {
 public:
  static constexpr int64_t kDefaultEvaluations = 5000;  // as local-search
  std::string_view name() const override { return "random-search"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
