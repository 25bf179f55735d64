// File: evaluator.h
// Evaluator: scores a placement. The simulator is one; a real measurer
// (measure/) is another. Placers hold an Evaluator and never ask which.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sim/placement.h"

namespace devplace {

struct Evaluation {
  double step_time_s = 0;  // one training step (or forward pass for a forward graph)
  bool oom = false;        // some device's peak memory exceeds its capacity
  // A measurer could not measure it (it crashed, hung, or said the placement
  // cannot run): step_time_s is then the failure penalty, not a time.
  bool failed = false;
  std::vector<int64_t> peak_memory_bytes;  // per device
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual std::string_view name() const = 0;
  // Scores one placement. Fails if the placement does not fit the problem
  // (wrong size, a device without a kernel for an op) or, for a measurer, if
  // the measurement failed. Not thread-safe unless the implementation says so.
  virtual Result<Evaluation> evaluate(const Placement& placement) = 0;
  // Scores several placements, results in their order. An implementation
  // may use up to `threads` threads (the simulator does); this one
  // evaluates them one after the other.
  virtual std::vector<Result<Evaluation>> evaluate_all(const std::vector<Placement>& placements, int threads) {
    (void)threads;
    std::vector<Result<Evaluation>> out;
    out.reserve(placements.size());
    for (const Placement& p : placements) out.push_back(evaluate(p));
    return out;
  }
  // True when a score costs a real run (a measurer), so that a placer may
  // do its preliminary search on the simulator instead.
  virtual bool measures() const { return false; }
  // Number of evaluate() calls that returned a result.
  int64_t num_evaluations() const { return num_evaluations_; }

 protected:
  int64_t num_evaluations_ = 0;
};

}  // namespace devplace
