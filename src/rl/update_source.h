// File: update_source.h
// UpdateSource: where the policy updates of a training run come from. The
// one training loop (train_reinforce, reinforce.cc) owns the budget, the
// schedules, the log, the checkpoints, the warm start and the finish; a
// source turns "make update `it`" into samples, their scores and the
// optimizer steps:
// - LocalUpdates (local_updates.h): samples and scores in this process;
// - the MPI parameter server's (distributed.cc): gradients pushed by
//   controller ranks.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "common/status.h"

namespace devplace::rl {

// What one update did, for the training log.
struct UpdateOutcome {
  int64_t samples = 0;  // placements scored for it
  double mean_valid_time_s = std::numeric_limits<double>::quiet_NaN();  // over the samples that fit
  double entropy = 0;         // mean per decision, of the policy that drew them
  double valid_fraction = 0;  // of its samples, those that fit
};

class UpdateSource {
 public:
  // `left` below: evaluations the budget still allows once those of
  // updates in flight are counted; kNoLimit without an evaluation budget.
  static constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

  virtual ~UpdateSource() = default;
  // Whether another update can be made within `left` evaluations.
  virtual bool can_update(int64_t left) const = 0;
  // Makes update `it` (its optimizer steps included) at this learning rate
  // (already set on the optimizer), entropy weight and sampling temperature
  // (already set on the loop's policy; a source that samples with other
  // copies of it sets theirs).
  virtual Result<UpdateOutcome> update(int64_t it, int64_t left, double entropy_weight, double temperature) = 0;
  // Evaluations made outside the run's own evaluator (other ranks'), and
  // those reserved for updates in flight. The loop's budget counts them.
  virtual int64_t remote_evaluations() const { return 0; }
  // After the last update (the MPI source drains and stops its controllers).
  virtual void stop() {}
  // What the progress bar calls the run ("rl", "rl x4").
  virtual std::string label() const = 0;
  // A check the source may call between the optimizer steps of an update
  // (PPO's later epochs): true ends the update early (a time budget spent),
  // so that a large graph's update does not run far past it.
  void set_stop_check(std::function<bool()> stop) { stop_ = std::move(stop); }

 protected:
  bool should_stop() const { return stop_ && stop_(); }

 private:
  std::function<bool()> stop_;
};

}  // namespace devplace::rl
