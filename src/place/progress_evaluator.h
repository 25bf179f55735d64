// File: progress_evaluator.h
// ProgressEvaluator: an Evaluator that passes every call on to another and
// moves a progress bar as the answers come: the evaluations so far, the
// best step time among the placements that fit, and the share of the
// budget spent (evaluations or seconds, whichever is further along). It
// lets a long search (local-search, a learned placer's warm start) show
// progress without knowing about bars. A disabled bar makes it a plain
// pass-through.
#pragma once

#include <chrono>
#include <limits>
#include <string_view>
#include <vector>

#include "common/progress.h"
#include "place/placer.h"
#include "sim/evaluator.h"

namespace devplace {

class ProgressEvaluator final : public Evaluator {
 public:
  // `budget`: what the bar's fraction is of (zero fields: unknown).
  ProgressEvaluator(Evaluator& inner, ProgressBar& bar, Budget budget);

  std::string_view name() const override { return inner_->name(); }
  bool measures() const override { return inner_->measures(); }
  Result<Evaluation> evaluate(const Placement& placement) override;
  std::vector<Result<Evaluation>> evaluate_all(const std::vector<Placement>& placements, int threads) override;

 private:
  void note(const Evaluation& e);

  Evaluator* inner_;
  ProgressBar* bar_;
  Budget budget_;
  std::chrono::steady_clock::time_point start_;
  double best_s_ = std::numeric_limits<double>::infinity();
};

}  // namespace devplace
