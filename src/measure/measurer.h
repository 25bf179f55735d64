// File: measurer.h
// Measurer: the Evaluator that runs placements for real through an external
// program (docs/measurer.md). It starts the program once and keeps it, sends
// it the graph, then one placement per evaluate(), and caches answers by
// placement content. A measurer that hangs, exits or prints garbage is
// killed and restarted; that placement is scored with the failure penalty
// (Evaluation::failed) so that a search goes on.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "measure/child_process.h"
#include "sim/evaluator.h"
#include "sim/problem.h"

namespace devplace {

struct MeasurerOptions {
  std::string command;        // run with /bin/sh -c
  std::string graph_source;   // sent in hello: an absolute path, or zoo:...
  int warmup = 2;             // steps the measurer drops
  int repeats = 5;            // steps it takes the median of
  double timeout_s = 60;      // for one placement's answer
  double startup_timeout_s = 300;  // for the answer to hello
  double failure_time_s = 100;     // the step time of a placement that could not be measured
  int max_start_failures = 3;      // failed starts in a row before giving up
  std::string log_path;       // JSON lines, one per event (docs/measurer.md); empty: none
  bool quiet = false;         // no fault lines on stderr
  int recheck = 3;            // fresh measurements of the chosen placement that `place` reports (0: none)
  bool cache = true;          // answer a placement seen before from the cache (false: measure it again)
  // A bar on stderr while an answer is overdue (after kSilentWaitS seconds):
  // the CLI sets it when stderr is a terminal.
  bool progress = false;
};

// Seconds of waiting for the measurer before a progress bar says so.
inline constexpr double kSilentWaitS = 5;

struct MeasurerStats {
  int64_t measured = 0;     // placements the measurer answered (ok, oom or error)
  int64_t cache_hits = 0;   // evaluate() calls answered from the cache
  int64_t ooms = 0;
  int64_t errors = 0;       // placements the measurer answered with status error
  int64_t timeouts = 0;     // faults
  int64_t exits = 0;
  int64_t garbage = 0;
  int64_t startup_faults = 0;
  int64_t starts = 0;       // starts that answered hello with ready
  int64_t faults() const { return timeouts + exits + garbage + startup_faults; }
};

class Measurer final : public Evaluator {
 public:
  // Starts the measurer and waits for its answer to hello. Fails (invalid
  // input: exit code 2) if it cannot start max_start_failures times in a row,
  // with the last reason.
  static Result<std::unique_ptr<Measurer>> start(const Problem& problem, MeasurerOptions options);
  ~Measurer() override;  // says bye and stops the measurer

  std::string_view name() const override { return "measurer"; }
  bool measures() const override { return true; }
  // Fails only for a placement that does not fit the problem, or when the
  // measurer cannot be restarted; a fault is a failed Evaluation instead.
  Result<Evaluation> evaluate(const Placement& placement) override;
  // Measures the placement again, past the cache (which keeps its answer):
  // the best of many noisy measurements is biased low, so a run reports a
  // fresh measurement of the placement it chose.
  Result<Evaluation> evaluate_fresh(const Placement& placement);

  const MeasurerStats& stats() const { return stats_; }
  const std::string& measurer_name() const { return measurer_name_; }
  // Whether a placement seen before is answered from the cache.
  bool caches() const { return options_.cache; }
  // One line: "measurer 'NAME': 412 placements measured, 37 from the cache,
  // 3 faults (...), 5 processes started (4 answered ready)".
  std::string summary() const;

 private:
  Measurer(const Problem& problem, MeasurerOptions options);
  // Starts the child and exchanges hello; retries up to max_start_failures.
  Status ensure_running();
  // One start attempt: ok, or the reason it failed; `refused` when the
  // measurer answered hello with an error (it is not retried).
  Status try_start(bool& refused);
  // One measure exchange; `status` is the answer's kind, null after a fault.
  Result<Evaluation> measure_now(const Placement& placement, int64_t& id, const char*& status);
  // Kills the child after a fault, counts and logs it.
  void fault(int64_t id, const char* kind, const std::string& message);
  Evaluation failed_evaluation() const;
  // Reads the measurer's next line; while it is overdue, a progress bar
  // says what is awaited (`what`: "placement 17", "hello").
  ChildProcess::ReadResult read_answer(double timeout_s, const std::string& what, std::string& line);
  void log_event(const std::string& json_line);
  double wall_s() const;

  struct PlacementHash {
    size_t operator()(const std::vector<DeviceId>& v) const;
  };
  struct Cached {
    Evaluation evaluation;
    int64_t id = 0;
    const char* status = "ok";
  };

  const Problem* problem_;
  MeasurerOptions options_;
  ChildProcess child_;
  std::string measurer_name_;
  MeasurerStats stats_;
  int64_t next_id_ = 1;
  std::unordered_map<std::vector<DeviceId>, Cached, PlacementHash> cache_;
  std::FILE* log_ = nullptr;
  double start_time_s_ = 0;
};

}  // namespace devplace
