// File: random_search.cc
// Best of uniformly random placements within the budget (see random_search.h).
#include "place/random_search.h"

#include <utility>
#include <vector>

#include "place/random.h"
#include "place/search.h"

namespace devplace {

Result<Placement> RandomSearchPlacer::place(const PlaceContext& ctx) {
  const SearchClock clock(ctx.budget, ctx.evaluator, kDefaultEvaluations);
  std::vector<DeviceId> best;
  double best_cost = 0;
  bool have_best = false;
  do {
    std::vector<DeviceId> devices = draw_random_devices(ctx.grouping, ctx.rng);
    DEVPLACE_ASSIGN_OR_RETURN(const Evaluation e, ctx.evaluator.evaluate(ctx.grouping.to_placement(devices)));
    const double cost = search_cost_s(ctx.problem, e);
    // Strictly better only: ties keep the earlier draw, so a longer run of
    // the same seed returns the same placement unless it finds a better one.
    if (!have_best || cost < best_cost) {
      best = std::move(devices);
      best_cost = cost;
      have_best = true;
    }
  } while (!clock.exhausted());
  return ctx.grouping.to_placement(best);
}

}  // namespace devplace
