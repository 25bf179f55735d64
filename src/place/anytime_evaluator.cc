// File: anytime_evaluator.cc
// The pass-through evaluator that records a search's best-so-far (see anytime_evaluator.h).
#include "place/anytime_evaluator.h"

#include <algorithm>

namespace devplace {

AnytimeEvaluator::AnytimeEvaluator(Evaluator& inner, std::vector<int64_t> milestones)
    : inner_(&inner), milestones_(std::move(milestones)) {}

Result<Evaluation> AnytimeEvaluator::evaluate(const Placement& placement) {
  Result<Evaluation> r = inner_->evaluate(placement);
  if (r.ok()) note(r.value());
  return r;
}

std::vector<Result<Evaluation>> AnytimeEvaluator::evaluate_all(const std::vector<Placement>& placements, int threads) {
  std::vector<Result<Evaluation>> results = inner_->evaluate_all(placements, threads);
  // In the order given, as if one after the other: the placer sees them so.
  for (const Result<Evaluation>& r : results) {
    if (r.ok()) note(r.value());
  }
  return results;
}

void AnytimeEvaluator::note(const Evaluation& e) {
  ++num_evaluations_;
  if (!e.oom && !e.failed) best_s_ = std::min(best_s_, e.step_time_s);
  if (best_after_.size() < milestones_.size() && num_evaluations_ == milestones_[best_after_.size()])
    best_after_.emplace_back(num_evaluations_, best_s_);
}

}  // namespace devplace
