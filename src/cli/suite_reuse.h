// File: suite_reuse.h
// `compare --suite --reuse FILE,...`: the rows an earlier run finished,
// taken from its --json answer instead of run again, so that a suite of
// hours that stopped part way (a row's process killed, Ctrl-C, a reboot)
// loses only the rows it had not finished. An answer is a suite's
// (`compare --suite paper --json`: rows matched by their graph and cluster
// arguments) or one row's (`compare --graph G --cluster C --json`: matched
// by the names and op count of the graph and cluster the row loads).
//
// A row is reused only when every method asked for ran to the end in it
// (none failed, interrupted or not run; a method not applicable to the
// graph counts as run), at the same budget and, where the answer records
// it, the same seed: the methods are deterministic for a given seed and
// evaluation budget, so the row is the one this run would compute. Its lower
// bound is computed again (it is cheap, and answers before the seed was
// recorded lack it in suite rows).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/method_comparison.h"
#include "cli/paper_suite.h"
#include "common/status.h"
#include "place/run_placer.h"

namespace devplace::cli {

struct ReuseRequest {
  std::vector<std::string> methods;  // in the table's order
  Budget budget;
  uint64_t seed = 1;
};

struct ReusedRow {
  Comparison comparison;  // results in the order of ReuseRequest::methods
  std::string file;       // the answer it came from
};

// For each of `rows`, the first answer among `files` that holds it and fits
// `request`, or nothing. `notes` gets one line per answer that names a row
// but does not fit (saying why) and per answer without a recorded seed.
// Fails, naming the file and the place, when a file cannot be read or is
// not a compare answer.
Result<std::vector<std::optional<ReusedRow>>> find_reusable_rows(std::span<const SuiteRow> rows,
                                                                 const std::vector<std::string>& files,
                                                                 const ReuseRequest& request,
                                                                 std::vector<std::string>* notes);

}  // namespace devplace::cli
