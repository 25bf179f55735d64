// File: exhaustive.cc
// Odometer enumeration of every group assignment (see exhaustive.h).
#include "place/exhaustive.h"

#include <cstdio>
#include <string>

#include "place/search.h"

namespace devplace {

Result<Placement> ExhaustivePlacer::place(const PlaceContext& ctx) {
  const Grouping& grouping = ctx.grouping;
  const int ng = grouping.num_groups();
  std::vector<std::vector<DeviceId>> choices(ng);
  double count = 1;
  for (int32_t g = 0; g < ng; ++g) {
    for (DeviceId d = 0; d < ctx.problem.num_devices(); ++d) {
      if (grouping.allows(g, d)) choices[g].push_back(d);
    }
    count *= static_cast<double>(choices[g].size());
  }
  if (count > static_cast<double>(kMaxPlacements)) {
    char placements[32];
    std::snprintf(placements, sizeof placements, "%.3g", count);
    return invalid_input("exhaustive: " + std::to_string(ng) + " groups have " + placements + " placements, more than the " +
                         std::to_string(kMaxPlacements) + " it tries; it is for tiny graphs (try another method)");
  }

  std::vector<size_t> digit(ng, 0);
  std::vector<DeviceId> current(ng);
  for (int32_t g = 0; g < ng; ++g) current[g] = choices[g][0];
  Placement best;
  double best_cost = 0;
  bool have_best = false;
  while (true) {
    Placement p = grouping.to_placement(current);
    DEVPLACE_ASSIGN_OR_RETURN(Evaluation e, ctx.evaluator.evaluate(p));
    const double cost = search_cost_s(ctx.problem, e);
    if (!have_best || cost < best_cost) {
      best = std::move(p);
      best_cost = cost;
      have_best = true;
    }
    int32_t g = 0;
    while (g < ng && ++digit[g] == choices[g].size()) {
      digit[g] = 0;
      current[g] = choices[g][0];
      ++g;
    }
    if (g == ng) break;
    current[g] = choices[g][digit[g]];
  }
  return best;
}

}  // namespace devplace
