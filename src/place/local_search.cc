// File: local_search.cc
// Simulated annealing, then a hill climb, over group moves (see local_search.h).
#include "place/local_search.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "place/search.h"

namespace devplace {

namespace {

// Groups joined by a data edge, each list sorted and without repeats.
std::vector<std::vector<int32_t>> group_neighbours(const Problem& problem, const Grouping& grouping) {
  const Graph& g = problem.graph();
  std::vector<std::vector<int32_t>> out(grouping.num_groups());
  for (const Tensor& t : g.tensors()) {
    const int32_t from = grouping.group_of(t.producer);
    for (OpId c : t.consumers) {
      const int32_t to = grouping.group_of(c);
      if (to == from) continue;
      out[from].push_back(to);
      out[to].push_back(from);
    }
  }
  for (auto& list : out) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return out;
}

struct Scored {
  std::vector<DeviceId> devices;  // per group
  double cost = 0;
};

}  // namespace

Result<Placement> LocalSearchPlacer::place(const PlaceContext& ctx) {
  const Grouping& grouping = ctx.grouping;
  const int ng = grouping.num_groups();
  SearchClock clock(ctx.budget, ctx.evaluator, kDefaultEvaluations);
  auto score = [&](const std::vector<DeviceId>& devices) -> Result<double> {
    DEVPLACE_ASSIGN_OR_RETURN(Evaluation e, ctx.evaluator.evaluate(grouping.to_placement(devices)));
    return search_cost_s(ctx.problem, e);
  };

  // Start from the best of the baselines and the fast algorithms.
  Scored best;
  bool have_best = false;
  for (const PlacerInfo& info : placer_registry()) {
    if (info.role != PlacerRole::kPaperBaseline && info.role != PlacerRole::kAlgorithm) continue;
    Rng rng(ctx.rng.next_u64());
    DEVPLACE_ASSIGN_OR_RETURN(Placement p, info.make()->place(PlaceContext{ctx.problem, grouping, ctx.evaluator, ctx.budget, rng}));
    std::vector<DeviceId> devices = grouping.device_of_groups(p);
    DEVPLACE_ASSIGN_OR_RETURN(const double cost, score(devices));
    if (!have_best || cost < best.cost) {
      best = {std::move(devices), cost};
      have_best = true;
    }
  }

  std::vector<int32_t> movable;  // groups with a choice of device
  for (int32_t g = 0; g < ng; ++g) {
    if (std::popcount(grouping.allowed_devices(g)) > 1) movable.push_back(g);
  }
  if (movable.empty()) return grouping.to_placement(best.devices);
  const std::vector<std::vector<int32_t>> neighbours = group_neighbours(ctx.problem, grouping);

  // Annealing over the first nine tenths of the budget.
  Scored current = best;
  const double start_temperature = 0.05 * best.cost;
  while (clock.progress() < 0.9) {
    const int32_t g = movable[ctx.rng.below(movable.size())];
    const DeviceId old_device = current.devices[g];
    DeviceId d = kNoId;
    if (!neighbours[g].empty() && ctx.rng.uniform() < 0.5) {
      d = current.devices[neighbours[g][ctx.rng.below(neighbours[g].size())]];
      if (d == old_device || !grouping.allows(g, d)) d = kNoId;
    }
    if (d == kNoId) {
      DeviceMask mask = grouping.allowed_devices(g) & ~(DeviceMask{1} << old_device);
      for (uint64_t k = ctx.rng.below(static_cast<uint64_t>(std::popcount(mask))); k > 0; --k) mask &= mask - 1;
      d = static_cast<DeviceId>(std::countr_zero(mask));
    }
    current.devices[g] = d;
    DEVPLACE_ASSIGN_OR_RETURN(const double cost, score(current.devices));
    const double temperature = start_temperature * (1.0 - clock.progress() / 0.9);
    const double increase = cost - current.cost;
    if (increase <= 0 || (temperature > 0 && ctx.rng.uniform() < std::exp(-increase / temperature))) {
      current.cost = cost;
      if (cost < best.cost) best = current;
    } else {
      current.devices[g] = old_device;
    }
  }

  // Hill climb from the best seen: take every improving single move until none is left.
  bool improved = true;
  while (improved && !clock.exhausted()) {
    improved = false;
    for (int32_t g : movable) {
      for (DeviceId d = 0; d < ctx.problem.num_devices() && !clock.exhausted(); ++d) {
        if (d == best.devices[g] || !grouping.allows(g, d)) continue;
        const DeviceId old_device = best.devices[g];
        best.devices[g] = d;
        DEVPLACE_ASSIGN_OR_RETURN(const double cost, score(best.devices));
        if (cost < best.cost) {
          best.cost = cost;
          improved = true;
        } else {
          best.devices[g] = old_device;
        }
      }
    }
  }
  return grouping.to_placement(best.devices);
}

}  // namespace devplace
