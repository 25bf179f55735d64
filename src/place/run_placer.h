// File: run_placer.h
// run_placer: the one way the CLI, the benchmarks and the tests run a placer:
// build the grouping, run the placer under its budget and seed, check the
// placement, and score it with the evaluator.
#pragma once

#include <cstdint>
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
  TrainingRunOptions training;  // for the learned placers
};

struct PlacerRun {
  std::string method;         // what ran: Placer::label (a pipeline such as local-search>rl>local-search)
  Placement placement;
  Evaluation evaluation;      // of the returned placement
  double search_time_s = 0;   // wall-clock seconds of place()
  int64_t evaluations = 0;    // evaluator calls made by the placer
  int num_groups = 0;         // groups the placer assigned
};

// Fails on an unknown method, or when the placer fails or returns a
// placement that does not fit the problem.
Result<PlacerRun> run_placer(std::string_view method, const Problem& problem, Evaluator& evaluator,
                             const PlacerRunOptions& options = {});

}  // namespace devplace
