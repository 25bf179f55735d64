// File: suite_reuse.h
// `compare --suite --reuse FILE,...`: the results earlier runs finished,
// taken from their --json answers instead of run again, so that a suite of
// hours that stopped part way (a row's process killed, Ctrl-C, a reboot)
// loses only what it had not finished, and a method added to a finished
// suite runs alone. An answer is a suite's
// (`compare --suite paper --json`: rows matched by their graph and cluster
// arguments) or one row's (`compare --graph G --cluster C --json`: matched
// by the names and op count of the graph and cluster the row loads).
//
// A method's result is reused when it ran to the end in an answer at the
// same budget, with the same options that change results (--grouping, a
// learned method's --lr-decay, ...) and, where the answer records it, the
// same seed (a method not
// applicable to the graph counts as run): the methods are deterministic for
// a given seed and evaluation budget, so the result is the one this run
// would compute. Each method is taken from the first answer, in the order
// given, that finished it, so answers of different methods combine; the
// methods no answer finished (missing, failed, interrupted) run again, and
// only they. A row's lower bound is computed again (it is cheap, and
// answers before the seed was recorded lack it in suite rows).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/method_comparison.h"
#include "cli/paper_suite.h"
#include "cli/problem_source.h"
#include "common/json_reader.h"
#include "common/status.h"
#include "place/run_placer.h"

namespace devplace::cli {

struct ReuseRequest {
  std::vector<std::string> methods;  // in the table's order
  Budget budget;
  uint64_t seed = 1;
  // The options that change results (compare's "options"); an answer
  // without them was made before they were recorded and counts as made
  // with none.
  json::Json options = json::Json::object();
};

struct ReusedRow {
  Comparison comparison;          // the reused results, in the order of ReuseRequest::methods
  std::vector<std::string> from;  // the answer each of comparison.results came from
  std::vector<std::string> missing;  // the methods asked for that no answer finished, in order
};

// For each of `rows`, its methods' results that answers among `files`
// finished at `request`'s budget and seed, or nothing when there are none.
// `notes` gets one line per answer that names a row but does not fit
// (saying why), per method result not reused (saying why), and per answer
// without a recorded seed.
// Fails, naming the file and the place, when a file cannot be read or is
// not a compare answer.
Result<std::vector<std::optional<ReusedRow>>> find_reusable_rows(std::span<const SuiteRow> rows,
                                                                 const std::vector<std::string>& files,
                                                                 const ReuseRequest& request,
                                                                 std::vector<std::string>* notes);

// The same for one problem (`compare --graph G --cluster C --reuse`): `row`
// names it by its --graph and --cluster arguments (a suite answer's rows
// match those), `loaded` is what they load with the run's own graph options
// (a one-problem answer matches its graph's and cluster's names and op
// count).
Result<std::optional<ReusedRow>> find_reusable_results(const SuiteRow& row, const LoadedProblem& loaded,
                                                       const std::vector<std::string>& files, const ReuseRequest& request,
                                                       std::vector<std::string>* notes);

// The row of `methods` (in that order): `reused`'s results and `fresh`'s
// (the run of `reused.missing`), related again to their best paper
// baseline; `from` gets the answer each result came from, "" for a fresh
// one. `fresh` holds the lower bound when it ran; without it (nothing
// missing) `reused`'s stands.
Comparison merge_reused(ReusedRow reused, std::optional<Comparison> fresh, const std::vector<std::string>& methods,
                        std::vector<std::string>* from);

}  // namespace devplace::cli
