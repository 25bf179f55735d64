// File: suite_reuse.cc
// Finding the rows of earlier suite runs that can be reused (suite_reuse.h).
#include "cli/suite_reuse.h"

#include <algorithm>

#include "cli/problem_source.h"
#include "common/json_reader.h"
#include "sim/lower_bound.h"

namespace devplace::cli {

namespace {

// One row as an answer holds it: the object with its "results", and the
// budget and seed of the run that made it.
struct Candidate {
  const json::Json* row;
  const json::Json* budget;
  const json::Json* seed;  // null in answers written before the seed was recorded
  const json::Json* seeds; // a median over these seeds (compare --seeds); null for one seed's answer
};

// A budget's field as the answer wrote it; 0 (no limit) when absent or null.
// Doubles are written so that they read back exactly, so the comparison
// with the request is exact.
double budget_field(const json::Json& budget, const char* key) {
  const auto it = budget.find(key);
  return it == budget.end() || it->is_null() ? 0.0 : it->get<double>();
}

// Why `candidate` cannot stand for the row, or "" when it can.
std::string misfit(const Candidate& candidate, const ReuseRequest& request) {
  if (budget_field(*candidate.budget, "evaluations") != static_cast<double>(request.budget.evaluations) ||
      budget_field(*candidate.budget, "seconds") != request.budget.seconds)
    return "another budget (" + candidate.budget->dump() + ")";
  if (candidate.seeds != nullptr) return "a median over seeds " + candidate.seeds->dump() + ", not seed " + std::to_string(request.seed);
  if (candidate.seed != nullptr && candidate.seed->get<uint64_t>() != request.seed)
    return "seed " + candidate.seed->dump() + ", not " + std::to_string(request.seed);
  if (candidate.row->value("interrupted", false)) return "interrupted";
  std::vector<std::string> ran;
  for (const json::Json& r : candidate.row->at("results")) {
    const std::string method = r.value("requested_method", r.at("method").get<std::string>());
    if (r.value("interrupted", false) || r.value("not_run", false)) return method + " did not run to the end";
    if (r.at("step_time_s").is_null() && !r.value("not_applicable", false))
      return method + " failed (" + r.value("error", std::string()) + ")";
    ran.push_back(method);
  }
  std::vector<std::string> wanted = request.methods;
  std::sort(ran.begin(), ran.end());
  std::sort(wanted.begin(), wanted.end());
  if (ran != wanted) return "other methods";
  return "";
}

// `c`'s results in the order of `methods` (the same set, misfit checked).
void order_results(Comparison& c, const std::vector<std::string>& methods) {
  std::vector<MethodResult> ordered;
  for (const std::string& m : methods) {
    for (MethodResult& r : c.results) {
      if (r.method == m) ordered.push_back(std::move(r));
    }
  }
  c.results = std::move(ordered);
}

}  // namespace

Result<std::vector<std::optional<ReusedRow>>> find_reusable_rows(std::span<const SuiteRow> rows,
                                                                 const std::vector<std::string>& files,
                                                                 const ReuseRequest& request,
                                                                 std::vector<std::string>* notes) {
  std::vector<json::Json> answers;
  answers.reserve(files.size());
  for (const std::string& file : files) {
    DEVPLACE_ASSIGN_OR_RETURN(json::Json answer, json::parse_file(file));
    if (!answer.is_object() || !(answer.contains("rows") || answer.contains("results")))
      return invalid_input(file + ": not a devplace compare --json answer (no \"rows\" or \"results\")");
    if (!answer.contains("seed") && !answer.contains("seeds"))
      notes->push_back(file + ": written before answers recorded their seed; taken as seed " + std::to_string(request.seed));
    answers.push_back(std::move(answer));
  }
  std::vector<std::optional<ReusedRow>> reused(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const SuiteRow& row = rows[i];
    std::optional<LoadedProblem> loaded;  // only when an answer may hold the row
    for (size_t f = 0; f < answers.size() && !reused[i]; ++f) {
      const json::Json& answer = answers[f];
      const std::string where = files[f];
      std::string path;  // the JSON path being read, for the error
      try {
        const json::Json* seed = answer.contains("seed") ? &answer.at("seed") : nullptr;
        const json::Json* seeds = answer.contains("seeds") ? &answer.at("seeds") : nullptr;
        std::vector<Candidate> candidates;
        if (answer.contains("rows")) {
          size_t index = 0;
          for (const json::Json& r : answer.at("rows")) {
            path = "rows[" + std::to_string(index++) + "]";
            if (r.at("graph").get<std::string>() == row.graph && r.at("cluster").get<std::string>() == row.cluster)
              candidates.push_back({&r, &answer.at("budget"), seed, seeds});
          }
        } else {
          if (!loaded) {
            DEVPLACE_ASSIGN_OR_RETURN(LoadedProblem p, load_problem(row.graph, row.cluster, GraphLoadOptions{}));
            loaded.emplace(std::move(p));
          }
          if (answer.at("graph").get<std::string>() == loaded->graph->name() &&
              answer.at("cluster").get<std::string>() == loaded->cluster->name() &&
              answer.value("ops", int64_t{-1}) == loaded->problem.num_ops())
            candidates.push_back({&answer, &answer.at("budget"), seed, seeds});
        }
        path.clear();
        for (const Candidate& c : candidates) {
          if (const std::string why = misfit(c, request); !why.empty()) {
            notes->push_back(where + ": " + row.model + " on " + row.cluster + " not reused: " + why);
            continue;
          }
          DEVPLACE_ASSIGN_OR_RETURN(Comparison comparison,
                                    comparison_from_json(*c.row, where + ": " + row.model + " on " + row.cluster));
          order_results(comparison, request.methods);
          if (!loaded) {
            DEVPLACE_ASSIGN_OR_RETURN(LoadedProblem p, load_problem(row.graph, row.cluster, GraphLoadOptions{}));
            loaded.emplace(std::move(p));
          }
          comparison.lower_bound = compute_lower_bound(loaded->problem);
          reused[i] = ReusedRow{std::move(comparison), where};
          break;
        }
      } catch (const json::Json::exception& e) {
        return invalid_input(where + (path.empty() ? "" : ": " + path) + ": not a devplace compare --json answer (" + e.what() + ")");
      }
    }
  }
  return reused;
}

}  // namespace devplace::cli
