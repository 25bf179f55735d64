// File: suite_reuse.cc
// Finding the rows of earlier suite runs that can be reused (suite_reuse.h).
#include "cli/suite_reuse.h"

#include <algorithm>
#include <functional>

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
  const json::Json* options; // the options that change results; null in answers written before they were recorded
};

// A budget's field as the answer wrote it; 0 (no limit) when absent or null.
// Doubles are written so that they read back exactly, so the comparison
// with the request is exact.
double budget_field(const json::Json& budget, const char* key) {
  const auto it = budget.find(key);
  return it == budget.end() || it->is_null() ? 0.0 : it->get<double>();
}

// Why no result of `candidate` can stand for the row's, or "" when they can.
std::string misfit(const Candidate& candidate, const ReuseRequest& request) {
  if (budget_field(*candidate.budget, "evaluations") != static_cast<double>(request.budget.evaluations) ||
      budget_field(*candidate.budget, "seconds") != request.budget.seconds)
    return "another budget (" + candidate.budget->dump() + ")";
  if (candidate.seeds != nullptr) return "a median over seeds " + candidate.seeds->dump() + ", not seed " + std::to_string(request.seed);
  if (candidate.seed != nullptr && candidate.seed->get<uint64_t>() != request.seed)
    return "seed " + candidate.seed->dump() + ", not " + std::to_string(request.seed);
  const json::Json made_with = candidate.options != nullptr ? *candidate.options : json::Json::object();
  if (made_with != request.options) return "other options (" + made_with.dump() + ", not " + request.options.dump() + ")";
  return "";
}

// Why `r` is not the result a run to the end gives, or "" when it is.
std::string unfinished(const MethodResult& r) {
  if (r.interrupted || r.not_run) return "did not run to the end";
  if (!r.run && !r.not_applicable) return "failed (" + r.error + ")";
  return "";
}

// The answers of `files`, checked to be compare answers.
Result<std::vector<json::Json>> read_answers(const std::vector<std::string>& files, const ReuseRequest& request,
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
  return answers;
}

// The problem a row loads, when first needed.
using ProblemOf = std::function<Result<const LoadedProblem*>()>;

// What `answers` hold of one row (find_reusable_rows).
Result<std::optional<ReusedRow>> reusable_in_row(const SuiteRow& row, const ProblemOf& problem, const std::vector<json::Json>& answers,
                                                 const std::vector<std::string>& files, const ReuseRequest& request,
                                                 std::vector<std::string>* notes) {
  const std::string label = row.model + std::string(" on ") + row.cluster;
  // Each method's result from the first answer that finished it.
  std::vector<std::optional<MethodResult>> found(request.methods.size());
  std::vector<std::string> from(request.methods.size());
  for (size_t f = 0; f < answers.size(); ++f) {
    const json::Json& answer = answers[f];
    const std::string where = files[f];
    std::string path;  // the JSON path being read, for the error
    try {
      const json::Json* seed = answer.contains("seed") ? &answer.at("seed") : nullptr;
      const json::Json* seeds = answer.contains("seeds") ? &answer.at("seeds") : nullptr;
      const json::Json* made_with = answer.contains("options") ? &answer.at("options") : nullptr;
      std::vector<Candidate> candidates;
      if (answer.contains("rows")) {
        if (!answer.at("rows").is_array()) return invalid_input(where + ": rows: not a devplace compare --json answer (not an array)");
        size_t index = 0;
        for (const json::Json& r : answer.at("rows")) {
          path = "rows[" + std::to_string(index++) + "]";
          if (r.at("graph").get<std::string>() == row.graph && r.at("cluster").get<std::string>() == row.cluster)
            candidates.push_back({&r, &answer.at("budget"), seed, seeds, made_with});
        }
      } else {
        DEVPLACE_ASSIGN_OR_RETURN(const LoadedProblem* loaded, problem());
        if (answer.at("graph").get<std::string>() == loaded->graph->name() &&
            answer.at("cluster").get<std::string>() == loaded->cluster->name()) {
          // The same names, another graph (a training step of it, other input shapes): said, not taken.
          const int64_t ops = answer.value("ops", int64_t{-1});
          if (ops == loaded->problem.num_ops()) {
            candidates.push_back({&answer, &answer.at("budget"), seed, seeds, made_with});
          } else {
            notes->push_back(where + ": " + label + " not reused: its graph has " + std::to_string(ops) + " ops, this one " +
                             std::to_string(loaded->problem.num_ops()));
          }
        }
      }
      path.clear();
      for (const Candidate& c : candidates) {
        if (const std::string why = misfit(c, request); !why.empty()) {
          notes->push_back(where + ": " + label + " not reused: " + why);
          continue;
        }
        DEVPLACE_ASSIGN_OR_RETURN(Comparison comparison, comparison_from_json(*c.row, where + ": " + label));
        for (MethodResult& r : comparison.results) {
          const auto m = std::find(request.methods.begin(), request.methods.end(), r.method);
          if (m == request.methods.end()) continue;  // not asked for
          const size_t k = static_cast<size_t>(m - request.methods.begin());
          if (found[k]) continue;  // an earlier answer's
          if (const std::string why = unfinished(r); !why.empty()) {
            notes->push_back(where + ": " + label + ", " + r.method + " not reused: it " + why);
            continue;
          }
          from[k] = where;
          found[k] = std::move(r);
        }
      }
    } catch (const json::Json::exception& e) {
      return invalid_input(where + (path.empty() ? "" : ": " + path) + ": not a devplace compare --json answer (" + e.what() + ")");
    }
  }
  ReusedRow reused;
  for (size_t k = 0; k < request.methods.size(); ++k) {
    if (!found[k]) {
      reused.missing.push_back(request.methods[k]);
      continue;
    }
    reused.comparison.results.push_back(std::move(*found[k]));
    reused.from.push_back(from[k]);
  }
  if (reused.comparison.results.empty()) return std::optional<ReusedRow>();
  DEVPLACE_ASSIGN_OR_RETURN(const LoadedProblem* loaded, problem());
  reused.comparison.lower_bound = compute_lower_bound(loaded->problem);
  relate_results(reused.comparison);
  return std::optional<ReusedRow>(std::move(reused));
}

}  // namespace

Result<std::vector<std::optional<ReusedRow>>> find_reusable_rows(std::span<const SuiteRow> rows,
                                                                 const std::vector<std::string>& files,
                                                                 const ReuseRequest& request,
                                                                 std::vector<std::string>* notes) {
  DEVPLACE_ASSIGN_OR_RETURN(const std::vector<json::Json> answers, read_answers(files, request, notes));
  std::vector<std::optional<ReusedRow>> reused(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    std::optional<LoadedProblem> loaded;  // only when an answer may hold the row
    const ProblemOf problem = [&]() -> Result<const LoadedProblem*> {
      if (!loaded) {
        DEVPLACE_ASSIGN_OR_RETURN(LoadedProblem p, load_problem(rows[i].graph, rows[i].cluster, GraphLoadOptions{}));
        loaded.emplace(std::move(p));
      }
      return &*loaded;
    };
    DEVPLACE_ASSIGN_OR_RETURN(reused[i], reusable_in_row(rows[i], problem, answers, files, request, notes));
  }
  return reused;
}

Result<std::optional<ReusedRow>> find_reusable_results(const SuiteRow& row, const LoadedProblem& loaded,
                                                       const std::vector<std::string>& files, const ReuseRequest& request,
                                                       std::vector<std::string>* notes) {
  DEVPLACE_ASSIGN_OR_RETURN(const std::vector<json::Json> answers, read_answers(files, request, notes));
  const ProblemOf problem = [&]() -> Result<const LoadedProblem*> { return &loaded; };
  return reusable_in_row(row, problem, answers, files, request, notes);
}

Comparison merge_reused(ReusedRow reused, std::optional<Comparison> fresh, const std::vector<std::string>& methods,
                        std::vector<std::string>* from) {
  Comparison merged;
  merged.lower_bound = fresh ? fresh->lower_bound : reused.comparison.lower_bound;
  from->clear();
  for (const std::string& m : methods) {
    auto is_m = [&](const MethodResult& r) { return r.method == m; };
    std::vector<MethodResult>& old = reused.comparison.results;
    if (const auto it = std::find_if(old.begin(), old.end(), is_m); it != old.end()) {
      from->push_back(reused.from[static_cast<size_t>(it - old.begin())]);
      merged.results.push_back(std::move(*it));
    } else if (fresh) {
      if (const auto f = std::find_if(fresh->results.begin(), fresh->results.end(), is_m); f != fresh->results.end()) {
        from->push_back("");
        merged.results.push_back(std::move(*f));
      }
    }
  }
  relate_results(merged);
  return merged;
}

}  // namespace devplace::cli
