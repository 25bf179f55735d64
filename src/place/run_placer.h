// File: run_placer.h
// run_placer: the one way the CLI, the benchmarks and the tests run a placer:
// build the grouping, run the placer under its budget and seed, check the
// placement, and score it with the evaluator.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "group/grouping.h"
#include "place/placer.h"
#include "sim/evaluator.h"
#include "sim/problem.h"

namespace devplace {

struct PlacerRunOptions {
  Budget budget;
  uint64_t seed = 1;
  GroupingOptions grouping;
  // Method options (the learned placers' training options, ...); each
  // placer is configured with those it declares (PlacerInfo::options).
  MethodOptions method_options;
};

struct PlacerRun {
  std::string method;         // what ran: Placer::label (a pipeline such as local-search>rl>local-search)
  Placement placement;
  Evaluation evaluation;      // of the returned placement
  double search_time_s = 0;   // wall-clock seconds of place()
  int64_t evaluations = 0;    // evaluator calls made by the placer
  int num_groups = 0;         // groups the placer assigned
  // A learned placer resumed from a checkpoint: the training before this
  // run and in all (search_time_s and evaluations count this run only).
  std::optional<ResumedWork> resumed;
  // A learned placer: its policy's last samples and greedy decode.
  std::optional<FinalPolicy> final_policy;
};

// Fails on an unknown method, on method options the placer rejects, or
// when the placer fails or returns a placement that does not fit the
// problem.
Result<PlacerRun> run_placer(std::string_view method, const Problem& problem, Evaluator& evaluator,
                             const PlacerRunOptions& options = {});

// The placer `method`, configured with the options of `given` it declares
// (the others are for other methods): what run_placer runs, and how a
// command checks its options before any work starts.
Result<std::unique_ptr<Placer>> make_configured_placer(std::string_view method, const MethodOptions& given);

}  // namespace devplace
