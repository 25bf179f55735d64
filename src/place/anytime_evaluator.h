// File: anytime_evaluator.h
// AnytimeEvaluator: an Evaluator that passes every call on to another and
// records the best step time among the placements that fit (no OOM, not a
// failed measurement) once the search has made 250, 1,000, 4,000 and
// 16,000 evaluations (or other milestones): a searching method's
// sample-efficiency curve, from one run, whatever the method. `devplace
// compare` wraps each method's evaluator in one.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/evaluator.h"

namespace devplace {

// The milestones of the curves compare prints.
inline const std::vector<int64_t>& default_milestones() {
  static const std::vector<int64_t> m = {250, 1000, 4000, 16000};
  return m;
}

class AnytimeEvaluator final : public Evaluator {
 public:
  // `milestones`: increasing evaluation counts.
  AnytimeEvaluator(Evaluator& inner, std::vector<int64_t> milestones);

  std::string_view name() const override { return inner_->name(); }
  bool measures() const override { return inner_->measures(); }
  Result<Evaluation> evaluate(const Placement& placement) override;
  std::vector<Result<Evaluation>> evaluate_all(const std::vector<Placement>& placements, int threads) override;

  // (milestone, best step time after that many evaluations) for each
  // milestone reached; +inf when no placement that fits was seen by then.
  const std::vector<std::pair<int64_t, double>>& best_after() const { return best_after_; }

 private:
  void note(const Evaluation& e);

  Evaluator* inner_;
  std::vector<int64_t> milestones_;
  std::vector<std::pair<int64_t, double>> best_after_;
  double best_s_ = std::numeric_limits<double>::infinity();
};

}  // namespace devplace
