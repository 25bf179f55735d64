// File: progress_evaluator.cc
// The pass-through evaluator that moves a progress bar (see progress_evaluator.h).
#include "place/progress_evaluator.h"

#include <algorithm>

#include "common/format.h"

namespace devplace {

ProgressEvaluator::ProgressEvaluator(Evaluator& inner, ProgressBar& bar, Budget budget)
    : inner_(&inner), bar_(&bar), budget_(budget), start_(std::chrono::steady_clock::now()) {}

Result<Evaluation> ProgressEvaluator::evaluate(const Placement& placement) {
  Result<Evaluation> r = inner_->evaluate(placement);
  if (r.ok()) note(r.value());
  return r;
}

std::vector<Result<Evaluation>> ProgressEvaluator::evaluate_all(const std::vector<Placement>& placements, int threads) {
  std::vector<Result<Evaluation>> results = inner_->evaluate_all(placements, threads);
  for (const Result<Evaluation>& r : results) {
    if (r.ok()) note(r.value());
  }
  return results;
}

void ProgressEvaluator::note(const Evaluation& e) {
  ++num_evaluations_;
  if (!e.oom && !e.failed) best_s_ = std::min(best_s_, e.step_time_s);
  double fraction = 0;
  if (budget_.evaluations > 0)
    fraction = static_cast<double>(num_evaluations_) / static_cast<double>(budget_.evaluations);
  if (budget_.seconds > 0)
    fraction = std::max(fraction, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() / budget_.seconds);
  bar_->update(num_evaluations_, std::min(fraction, 1.0),
               "evaluations, best " + (best_s_ < std::numeric_limits<double>::infinity() ? format_seconds(best_s_) : std::string("none fits yet")));
}

}  // namespace devplace
