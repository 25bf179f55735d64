// File: method_comparison.h
// Runs several placement methods on one problem under the same budget and
// seed, and relates their step times to the step-time lower bound and to
// the best of the paper's baselines (PlacerRole::kPaperBaseline) among them.
// `devplace compare` prints the result; `devplace place` shares the lower
// bound's reporting.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/json_reader.h"
#include "common/status.h"
#include "place/placer.h"
#include "place/run_placer.h"
#include "sim/lower_bound.h"
#include "sim/problem.h"

namespace devplace::cli {

// The evaluations each searching method (PlacerRole::kSearch: random-search,
// local-search; kLearned: rl, hierarchical) gets in `devplace compare` when
// neither --evaluations nor --budget is given, so that they are compared at
// an equal budget. The other methods make no evaluations of their own.
inline constexpr int64_t kDefaultCompareEvaluations = 4000;

// Whether a method of this role spends the budget (kSearch or kLearned).
bool is_searching(PlacerRole role);

struct MethodResult {
  std::string method;
  PlacerRole role = PlacerRole::kSimple;
  std::optional<PlacerRun> run;  // empty when the method failed on this problem
  std::string error;             // then its one-line message
  // Ctrl-C: the method stopped early and returned the best placement it
  // had found (partial); or it never ran (not_run, with no placement).
  bool interrupted = false;
  bool not_run = false;
  bool not_applicable = false;  // the method is not defined for this graph (error says why)
  // step time / lower bound; NaN when the method failed or the bound is 0.
  double ratio_to_lower_bound = 0;
  // best paper baseline's step time / this step time; NaN when the method
  // failed or ran out of memory, or no paper baseline ran without OOM.
  double speedup_over_paper_baselines = 0;
  // A searching method's sample-efficiency curve (AnytimeEvaluator): the
  // best step time among the placements it had evaluated after 250, 1,000,
  // 4,000 and 16,000 evaluations, for those it reached.
  std::vector<std::pair<int64_t, double>> best_after;
};

struct Comparison {
  LowerBound lower_bound;
  std::vector<MethodResult> results;  // in the order the methods were given
  // Fastest step time of a paper baseline that ran without OOM; +inf if none.
  double best_paper_baseline_s = 0;
};

// The methods of --methods (comma-separated names, each once), or, without
// it, every registered method but the reference ones (exhaustive) and the
// learned ones (rl, hierarchical: minutes of training each), in registry
// order; `with_learned` appends the learned ones after the others. An unknown
// name is an error listing the known ones.
Result<std::vector<std::string>> resolve_methods(const std::optional<std::string>& list, bool with_learned = false);

// Runs each method (names from resolve_methods) with its own Simulator, or
// with `evaluator` when given (a measurer, shared so its cache is).
// A method that fails (an error, or an exception from LibTorch) is recorded
// in its row; the others still run.
Comparison compare_methods(const Problem& problem, const std::vector<std::string>& methods,
                           const PlacerRunOptions& options, Evaluator* evaluator = nullptr);

// Sets `c`'s best paper baseline and each result's ratio to the lower bound
// and speed-up over it, from its results and lower bound (compare_methods
// does; a row put together from earlier answers and new runs must again).
void relate_results(Comparison& c);

// The name a table shows for a result: what ran (PlacerRun::method, which
// for a learned method may name its stages, "local-search>rl>local-search"),
// else the method asked for.
const std::string& shown_method(const MethodResult& result);

// Fastest step time among the methods that are not paper baselines and ran
// without OOM; +inf if none.
double best_other_s(const Comparison& comparison);

// {"method", "step_time_s", "oom", "search_time_s", "evaluations",
//  "ratio_to_lower_bound", "speedup_over_paper_baselines", and for a
//  searching method "best_after": {"250": s, "1000": s, ...}} or, for a failed
// method, {"method", "error"} with the figures null. "method" is what ran
// (shown_method: a pipeline's stages); "requested_method", present when
// that differs, the method asked for.
json::Json method_result_json(const MethodResult& result);

// The comparison of a `devplace compare --json` answer (its "lower_bound",
// "best_paper_baseline_s" and "results"), as far as the answer holds it:
// each run's step time, OOM, search time, evaluations and what ran, not
// its placement; the lower bound stays 0 where the answer lacks it (a
// suite's rows). `source` names the answer in errors.
Result<Comparison> comparison_from_json(const json::Json& answer, const std::string& source);

// The sample-efficiency curves of the searching methods of `rows` (a label
// each, such as "RNNLM k80x2"), as a table: a line per row and method, a
// column per milestone reached; nothing when no method searched.
std::string curves_table(const std::vector<std::pair<std::string, const Comparison*>>& rows);

// A learned placer's policy at the end (FinalPolicy), as JSON: {"updates",
// "samples", "mean_sample_step_time_s", "samples_fit_fraction",
// "entropy_per_decision", "greedy_step_time_s", "greedy_oom"}, null
// figures where not known; null without one.
json::Json final_policy_json(const std::optional<FinalPolicy>& policy);
// Its inverse, for answers read back (--reuse); null gives nothing.
std::optional<FinalPolicy> final_policy_from_json(const json::Json& j);
// One line: "after 250 updates, its last 16 samples average 398 ms (all
// fit; entropy 0.006 nats per decision); its greedy decode 507 ms".
std::string final_policy_line(const FinalPolicy& policy);
// The learned methods of `rows` whose policy is known, under a heading
// that says what the columns are: a line per row and method with its last
// samples' mean step time, its greedy decode's and its entropy; nothing
// when there are none.
std::string final_policies_table(const std::vector<std::pair<std::string, const Comparison*>>& rows);

// Which part of the bound binds: "critical path", "load" or "group".
std::string_view binding_part(const LowerBound& bound);
// {"critical_path_s", "load_s", "group_s", "binding"}.
json::Json lower_bound_json(const LowerBound& bound);

// a / b when both are positive and finite, else NaN.
double ratio(double a, double b);
// {"seconds": S or null, "evaluations": N or null}: null for no limit of that kind.
json::Json budget_json(const Budget& budget);

// A number, or null for NaN and infinities.
json::Json number_or_null(double v);

}  // namespace devplace::cli
