// File: search.cc
// The search cost and the budget clock (see search.h).
#include "place/search.h"

#include <algorithm>

#include "common/check.h"
#include "common/interrupt.h"

namespace devplace {

double search_cost_s(const Problem& problem, const Evaluation& evaluation) {
  // A measurement that failed ranks with the OOM placements (its step time
  // is already the failure penalty).
  if (evaluation.failed) return kInfeasibleCostS + evaluation.step_time_s;
  if (!evaluation.oom) return evaluation.step_time_s;
  double over_bytes = 0;
  for (DeviceId d = 0; d < problem.num_devices() && d < static_cast<DeviceId>(evaluation.peak_memory_bytes.size()); ++d) {
    over_bytes += static_cast<double>(std::max<int64_t>(0, evaluation.peak_memory_bytes[d] - problem.cluster().device(d).memory_bytes));
  }
  return kInfeasibleCostS + evaluation.step_time_s + over_bytes * 1e-9;
}

Result<ScoredDevices> best_fast_placement(const PlaceContext& ctx) {
  ScoredDevices best;
  bool have_best = false;
  const int64_t start = ctx.evaluator.num_evaluations();
  for (const PlacerInfo& info : placer_registry()) {
    if (info.role != PlacerRole::kPaperBaseline && info.role != PlacerRole::kAlgorithm) continue;
    if (have_best && ctx.budget.evaluations > 0 &&
        ctx.evaluator.num_evaluations() - start + kMaxFastPlacerEvaluations > ctx.budget.evaluations)
      break;
    Rng rng(ctx.rng.next_u64());
    Result<Placement> p = info.make()->place(PlaceContext{ctx.problem, ctx.grouping, ctx.evaluator, ctx.budget, rng});
    if (!p.ok() && p.error().code() == ErrorCode::kNotApplicable) continue;  // expert on a graph without layers
    if (!p.ok()) return p.error();
    std::vector<DeviceId> devices = ctx.grouping.device_of_groups(p.value());
    DEVPLACE_ASSIGN_OR_RETURN(Evaluation e, ctx.evaluator.evaluate(ctx.grouping.to_placement(devices)));
    const double cost = search_cost_s(ctx.problem, e);
    if (!have_best || cost < best.cost) {
      best = {std::move(devices), cost};
      have_best = true;
    }
  }
  DEVPLACE_CHECK(have_best);
  return best;
}

SearchClock::SearchClock(const Budget& budget, const Evaluator& evaluator, int64_t default_evaluations)
    : evaluator_(&evaluator),
      seconds_(budget.seconds),
      evaluations_(budget.seconds <= 0 && budget.evaluations <= 0 ? default_evaluations : budget.evaluations),
      start_evaluations_(evaluator.num_evaluations()),
      start_(std::chrono::steady_clock::now()) {}

double SearchClock::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

// Ctrl-C (inside an InterruptScope) ends the search too: the placer
// returns the best it has found.
bool SearchClock::exhausted() const { return progress() >= 1.0 || interrupt_requested(); }

double SearchClock::progress() const {
  double p = 0;
  if (evaluations_ > 0) p = static_cast<double>(evaluator_->num_evaluations() - start_evaluations_) / static_cast<double>(evaluations_);
  if (seconds_ > 0) p = std::max(p, elapsed_s() / seconds_);
  return std::min(p, 1.0);
}

}  // namespace devplace
