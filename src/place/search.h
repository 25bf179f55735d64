// File: search.h
// What the searching placers (local-search, exhaustive, and later RL)
// share: one cost that ranks placements, and a clock for the budget.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "place/placer.h"

namespace devplace {

// Where the cost of a placement that does not fit (or could not be
// measured) starts: above any real step time (31 years), so that the
// ranking is lexicographic: whether it fits, then its time.
inline constexpr double kInfeasibleCostS = 1e9;

// Seconds to minimise: the step time; for a placement that runs out of
// memory, kInfeasibleCostS plus the step time plus one second per GB over
// capacity (among OOM placements the one that overflows less ranks
// higher); for one the measurer could not measure, kInfeasibleCostS plus
// its failure time. Any placement that fits ranks above every one that
// does not, however slow.
double search_cost_s(const Problem& problem, const Evaluation& evaluation);

// Whether a cost is that of a placement that fits and was measured.
inline bool is_feasible_cost(double cost_s) { return cost_s < kInfeasibleCostS; }

// The best placement, by search_cost_s, among those of every registered
// placer of the paper-baseline and algorithm roles (no search): where
// local-search starts and what the RL warm start imitates. Per group of
// the context's grouping. Under an evaluation budget it stops before a
// placer that could take the count past it (after the first: a budget of 1
// gets the CPU placement), counting kMaxFastPlacerEvaluations per placer.
inline constexpr int64_t kMaxFastPlacerEvaluations = 3;  // a partitioner's two candidates, then the score
struct ScoredDevices {
  std::vector<DeviceId> devices;  // per group
  double cost = 0;                // search_cost_s
};
Result<ScoredDevices> best_fast_placement(const PlaceContext& context);

// The budget of one place() call, counted from construction.
class SearchClock {
 public:
  // `default_evaluations` applies when the budget sets no limit at all.
  SearchClock(const Budget& budget, const Evaluator& evaluator, int64_t default_evaluations);
  bool exhausted() const;
  // Share of the budget used, 0..1 (the larger of time and evaluations).
  double progress() const;

 private:
  double elapsed_s() const;
  const Evaluator* evaluator_;
  double seconds_;
  int64_t evaluations_;
  int64_t start_evaluations_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace devplace
