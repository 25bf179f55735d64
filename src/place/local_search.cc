// File: local_search.cc
// Simulated annealing, then a hill climb, over group moves (see local_search.h).
#include "place/local_search.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>


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

// Costs of the placements already evaluated, by their group devices.
class CostCache {
 public:
  std::optional<double> find(const std::vector<DeviceId>& devices) const {
    auto it = costs_.find(key(devices));
    return it == costs_.end() ? std::nullopt : std::optional<double>(it->second);
  }
  void insert(const std::vector<DeviceId>& devices, double cost) { costs_.emplace(key(devices), cost); }

 private:
  static std::string key(const std::vector<DeviceId>& devices) {
    return std::string(reinterpret_cast<const char*>(devices.data()), devices.size() * sizeof(DeviceId));
  }
  std::unordered_map<std::string, double> costs_;
};

}  // namespace

Result<Placement> LocalSearchPlacer::place(const PlaceContext& ctx) {
  // The start's evaluations count against the budget.
  const SearchClock clock(ctx.budget, ctx.evaluator, kDefaultEvaluations);
  DEVPLACE_ASSIGN_OR_RETURN(ScoredDevices start, best_fast_placement(ctx));
  return local_search_from(ctx, std::move(start), clock);
}

Result<Placement> local_search_from(const PlaceContext& ctx, ScoredDevices start, const SearchClock& clock) {
  constexpr int64_t kDefaultEvaluations = LocalSearchPlacer::kDefaultEvaluations;
  const Grouping& grouping = ctx.grouping;
  const int ng = grouping.num_groups();
  const int nd = ctx.problem.num_devices();
  CostCache cache;
  // Proposals, cached or not, are capped too, so a tiny problem whose every
  // placement is cached still ends.
  int64_t proposals = 0;
  const int64_t max_proposals = 50 * std::max<int64_t>(ctx.budget.evaluations, kDefaultEvaluations);
  auto done = [&] { return clock.exhausted() || proposals >= max_proposals; };
  auto score = [&](const std::vector<DeviceId>& devices) -> Result<double> {
    ++proposals;
    if (std::optional<double> cached = cache.find(devices)) return *cached;
    DEVPLACE_ASSIGN_OR_RETURN(Evaluation e, ctx.evaluator.evaluate(grouping.to_placement(devices)));
    const double cost = search_cost_s(ctx.problem, e);
    cache.insert(devices, cost);
    return cost;
  };

  ScoredDevices best{std::move(start.devices), start.cost};
  cache.insert(best.devices, best.cost);

  std::vector<int32_t> movable;  // groups with a choice of device
  for (int32_t g = 0; g < ng; ++g) {
    if (std::popcount(grouping.allowed_devices(g)) > 1) movable.push_back(g);
  }
  if (movable.empty()) return grouping.to_placement(best.devices);
  const std::vector<std::vector<int32_t>> neighbours = group_neighbours(ctx.problem, grouping);
  auto random_move = [&](std::vector<DeviceId>& devices) {
    const int32_t g = movable[ctx.rng.below(movable.size())];
    DeviceId d = kNoId;
    if (!neighbours[g].empty() && ctx.rng.uniform() < 0.5) {
      d = devices[neighbours[g][ctx.rng.below(neighbours[g].size())]];
      if (d == devices[g] || !grouping.allows(g, d)) d = kNoId;
    }
    if (d == kNoId) {
      DeviceMask mask = grouping.allowed_devices(g) & ~(DeviceMask{1} << devices[g]);
      for (uint64_t k = ctx.rng.below(static_cast<uint64_t>(std::popcount(mask))); k > 0; --k) mask &= mask - 1;
      d = static_cast<DeviceId>(std::countr_zero(mask));
    }
    devices[g] = d;
  };

  // Annealing over the first half of the budget.
  ScoredDevices current = best;
  // 5% of the start's step time (of its time and overflow when it does not fit).
  const double start_temperature = 0.05 * (is_feasible_cost(best.cost) ? best.cost : best.cost - kInfeasibleCostS);
  while (clock.progress() < 0.5 && proposals < max_proposals / 2 && !done()) {
    std::vector<DeviceId> next = current.devices;
    random_move(next);
    DEVPLACE_ASSIGN_OR_RETURN(const double cost, score(next));
    const double temperature = start_temperature * (1.0 - clock.progress() / 0.5);
    const double increase = cost - current.cost;
    if (increase <= 0 || (temperature > 0 && ctx.rng.uniform() < std::exp(-increase / temperature))) {
      current = {std::move(next), cost};
      if (cost < best.cost) best = current;
    }
  }

  // Then iterated hill climbing: climb to a placement no single move
  // improves, kick the best one by a few random moves, climb again.
  auto climb = [&](ScoredDevices& s) -> Status {
    bool improved = true;
    while (improved && !done()) {
      improved = false;
      for (int32_t g : movable) {
        for (DeviceId d = 0; d < nd && !done(); ++d) {
          if (d == s.devices[g] || !grouping.allows(g, d)) continue;
          const DeviceId old_device = s.devices[g];
          s.devices[g] = d;
          DEVPLACE_ASSIGN_OR_RETURN(const double cost, score(s.devices));
          if (cost < s.cost) {
            s.cost = cost;
            improved = true;
          } else {
            s.devices[g] = old_device;
          }
        }
      }
    }
    return Status::ok_status();
  };
  // Kicks grow with every kick that fails, so that a basin deeper than a
  // few moves is left too.
  DEVPLACE_RETURN_IF_ERROR(climb(best));
  uint64_t failures = 0;
  while (!done()) {
    ScoredDevices kicked = best;
    const uint64_t size = 1 + ctx.rng.below(std::min<uint64_t>(3 + failures / 4, movable.size()));
    for (uint64_t k = 0; k < size; ++k) random_move(kicked.devices);
    DEVPLACE_ASSIGN_OR_RETURN(kicked.cost, score(kicked.devices));
    DEVPLACE_RETURN_IF_ERROR(climb(kicked));
    if (kicked.cost < best.cost) {
      best = std::move(kicked);
      failures = 0;
    } else {
      ++failures;
    }
  }
  return grouping.to_placement(best.devices);
}

}  // namespace devplace
