// File: local_search.h
// LocalSearchPlacer ("local-search"): simulated annealing over group moves,
// scored by the evaluator, started from the best placement of the paper's
// baselines and the fast algorithms (every registered placer of those
// roles). A move puts one group on another device it may use: half the
// time the device of a neighbouring group (so chains consolidate), else a
// uniformly drawn one. The first half of the budget anneals: a worse move
// is taken with probability exp(-increase / T), T falling linearly from 5%
// of the starting cost to 0. The second half is iterated hill climbing:
// climb until no single move improves, kick the best placement by a few
// random moves (more after every kick that fails), climb again. Placements already scored are not
// evaluated again. It returns the best placement seen, so never one that
// runs out of memory when one that fits was evaluated.
//
// Without a budget it makes kDefaultEvaluations evaluations, which is
// deterministic for a seed; a budget in seconds stops by the clock.
#pragma once

#include <cstdint>
#include <vector>

#include "place/placer.h"
#include "place/search.h"

namespace devplace {

class LocalSearchPlacer : public Placer {
 public:
  static constexpr int64_t kDefaultEvaluations = 5000;
  std::string_view name() const override { return "local-search"; }
  Result<Placement> place(const PlaceContext& context) override;
};

// The same search from a given start (devices per group of the context's
// grouping, and its search_cost_s, not evaluated again) instead of the fast
// placers' best, until `clock` runs out: the RL placers' polish.
Result<Placement> local_search_from(const PlaceContext& context, ScoredDevices start, const SearchClock& clock);

}  // namespace devplace
