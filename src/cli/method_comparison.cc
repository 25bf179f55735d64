// File: method_comparison.cc
// Runs methods side by side and relates them (see method_comparison.h).
#include "cli/method_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <sstream>

#include "common/check.h"
#include "common/format.h"
#include "common/interrupt.h"
#include "common/progress.h"
#include "place/anytime_evaluator.h"
#include "sim/simulator.h"

namespace devplace::cli {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

const PlacerInfo* find_info(std::string_view name) {
  for (const PlacerInfo& info : placer_registry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

bool ran_in_memory(const MethodResult& r) { return r.run && !r.run->evaluation.oom && !r.run->evaluation.failed; }
}  // namespace

bool is_searching(PlacerRole role) { return role == PlacerRole::kSearch || role == PlacerRole::kLearned; }

Result<std::vector<std::string>> resolve_methods(const std::optional<std::string>& list, bool with_learned) {
  std::vector<std::string> methods;
  if (!list) {
    for (const PlacerInfo& info : placer_registry()) {
      if (info.role != PlacerRole::kReference && info.role != PlacerRole::kLearned) methods.emplace_back(info.name);
    }
    if (with_learned) {
      for (const PlacerInfo& info : placer_registry()) {
        if (info.role == PlacerRole::kLearned) methods.emplace_back(info.name);
      }
    }
    return methods;
  }
  size_t pos = 0;
  while (pos <= list->size()) {
    size_t end = list->find(',', pos);
    if (end == std::string::npos) end = list->size();
    const std::string name = list->substr(pos, end - pos);
    if (name.empty()) return invalid_input("--methods: expected comma-separated method names, got '" + *list + "'");
    Result<std::unique_ptr<Placer>> placer = make_placer(name);
    if (!placer.ok()) return placer.error().with_prefix("--methods");
    for (const std::string& m : methods) {
      if (m == name) return invalid_input("--methods: '" + name + "' is listed twice");
    }
    methods.push_back(name);
    pos = end + 1;
  }
  return methods;
}

Comparison compare_methods(const Problem& problem, const std::vector<std::string>& methods,
                           const PlacerRunOptions& options, Evaluator* evaluator) {
  Comparison c;
  c.lower_bound = compute_lower_bound(problem);
  // Which method runs, on a terminal only: a comparison takes seconds to minutes.
  ProgressBar bar("compare", stderr_is_terminal());
  for (const std::string& method : methods) {
    bar.update(static_cast<int64_t>(c.results.size()), static_cast<double>(c.results.size()) / static_cast<double>(methods.size()),
               "running " + method);
    const PlacerInfo* info = find_info(method);
    DEVPLACE_CHECK(info != nullptr);  // resolve_methods checked the names
    MethodResult r;
    r.method = method;
    r.role = info->role;
    // After Ctrl-C the methods left do not run.
    if (interrupt_requested()) {
      r.not_run = true;
      r.error = "not run: interrupted (Ctrl-C)";
      c.results.push_back(std::move(r));
      continue;
    }
    Simulator sim(problem);
    Evaluator& base = evaluator ? *evaluator : sim;
    AnytimeEvaluator anytime(base, default_milestones());  // the searching methods' curves
    const bool searching = is_searching(info->role);
    try {
      Result<PlacerRun> run = run_placer(method, problem, searching ? static_cast<Evaluator&>(anytime) : base, options);
      if (run.ok()) {
        r.run = std::move(run).value();
      } else {
        r.error = run.error().message();
        r.not_applicable = run.error().code() == ErrorCode::kNotApplicable;
      }
    } catch (const std::exception& e) {
      // A learned method's LibTorch reports errors by exception: the
      // method failed, the comparison goes on.
      r.error = std::string("internal error: ") + e.what();
    }
    r.interrupted = interrupt_requested();
    if (searching) r.best_after = anytime.best_after();
    c.results.push_back(std::move(r));
  }
  relate_results(c);
  return c;
}

void relate_results(Comparison& c) {
  c.best_paper_baseline_s = kInf;
  for (const MethodResult& r : c.results) {
    if (ran_in_memory(r) && r.role == PlacerRole::kPaperBaseline)
      c.best_paper_baseline_s = std::min(c.best_paper_baseline_s, r.run->evaluation.step_time_s);
  }
  for (MethodResult& r : c.results) {
    r.ratio_to_lower_bound = r.run ? ratio(r.run->evaluation.step_time_s, c.lower_bound.value_s()) : kNan;
    r.speedup_over_paper_baselines = ran_in_memory(r) ? ratio(c.best_paper_baseline_s, r.run->evaluation.step_time_s) : kNan;
  }
}

const std::string& shown_method(const MethodResult& r) { return r.run && !r.run->method.empty() ? r.run->method : r.method; }

double best_other_s(const Comparison& comparison) {
  double best = kInf;
  for (const MethodResult& r : comparison.results) {
    if (ran_in_memory(r) && r.role != PlacerRole::kPaperBaseline) best = std::min(best, r.run->evaluation.step_time_s);
  }
  return best;
}

json::Json method_result_json(const MethodResult& r) {
  // What ran, so that a pipeline is named as one ("fast>rl"); the method
  // asked for as well when that differs.
  json::Json j = {{"method", shown_method(r)}};
  if (shown_method(r) != r.method) j["requested_method"] = r.method;
  if (!r.run) {
    j.update({{"step_time_s", nullptr}, {"oom", nullptr}, {"search_time_s", nullptr}, {"evaluations", nullptr},
              {"ratio_to_lower_bound", nullptr}, {"speedup_over_paper_baselines", nullptr}, {"error", r.error}});
    if (r.not_run) j["not_run"] = true;
    if (r.not_applicable) j["not_applicable"] = true;
    return j;
  }
  if (r.interrupted) j["interrupted"] = true;
  j.update({{"step_time_s", r.run->evaluation.step_time_s},
            {"oom", r.run->evaluation.oom},
            {"search_time_s", r.run->search_time_s},
            {"evaluations", r.run->evaluations},
            {"ratio_to_lower_bound", number_or_null(r.ratio_to_lower_bound)},
            {"speedup_over_paper_baselines", number_or_null(r.speedup_over_paper_baselines)}});
  if (r.run->final_policy) j["final_policy"] = final_policy_json(r.run->final_policy);
  if (is_searching(r.role)) {
    json::Json curve = json::Json::object();
    for (const auto& [evaluations, best] : r.best_after) curve[std::to_string(evaluations)] = number_or_null(best);
    j["best_after"] = curve;
  }
  return j;
}

Result<Comparison> comparison_from_json(const json::Json& answer, const std::string& source) {
  try {
    Comparison c;
    if (const auto bound = answer.find("lower_bound"); bound != answer.end()) {
      c.lower_bound.critical_path_s = bound->at("critical_path_s").get<double>();
      c.lower_bound.load_s = bound->at("load_s").get<double>();
      c.lower_bound.group_s = bound->at("group_s").get<double>();
    }
    const json::Json& best = answer.at("best_paper_baseline_s");
    c.best_paper_baseline_s = best.is_null() ? kInf : best.get<double>();
    auto number = [](const json::Json& j) { return j.is_null() ? kNan : j.get<double>(); };
    for (const json::Json& j : answer.at("results")) {
      MethodResult r;
      r.method = j.value("requested_method", j.at("method").get<std::string>());
      const PlacerInfo* info = find_info(r.method);
      if (info == nullptr) return invalid_input(source + ": results: unknown method '" + r.method + "'");
      r.role = info->role;
      r.interrupted = j.value("interrupted", false);
      r.not_run = j.value("not_run", false);
      r.not_applicable = j.value("not_applicable", false);
      r.ratio_to_lower_bound = number(j.at("ratio_to_lower_bound"));
      r.speedup_over_paper_baselines = number(j.at("speedup_over_paper_baselines"));
      if (const auto curve = j.find("best_after"); curve != j.end()) {
        for (const auto& [evaluations, best] : curve->items())
          r.best_after.emplace_back(std::stoll(evaluations), best.is_null() ? kInf : best.get<double>());
        std::sort(r.best_after.begin(), r.best_after.end());
      }
      if (j.at("step_time_s").is_null()) {
        r.error = j.at("error").get<std::string>();
      } else {
        PlacerRun run;
        run.method = j.at("method").get<std::string>();
        run.evaluation.step_time_s = j.at("step_time_s").get<double>();
        run.evaluation.oom = j.at("oom").get<bool>();
        run.search_time_s = j.at("search_time_s").get<double>();
        run.evaluations = j.at("evaluations").get<int64_t>();
        if (const auto f = j.find("final_policy"); f != j.end()) run.final_policy = final_policy_from_json(*f);
        r.run = std::move(run);
      }
      c.results.push_back(std::move(r));
    }
    return c;
  } catch (const json::Json::exception& e) {
    return invalid_input(source + ": not a devplace compare answer (" + e.what() + ")");
  }
}

std::string curves_table(const std::vector<std::pair<std::string, const Comparison*>>& rows) {
  std::vector<int64_t> milestones;
  size_t label_width = 0, method_width = 8;
  for (const auto& [label, c] : rows) {
    for (const MethodResult& r : c->results) {
      if (r.best_after.empty()) continue;
      if (!label.empty()) label_width = std::max(label_width, label.size() + 2);
      method_width = std::max(method_width, shown_method(r).size() + 2);
      for (const auto& point : r.best_after) {
        if (std::find(milestones.begin(), milestones.end(), point.first) == milestones.end()) milestones.push_back(point.first);
      }
    }
  }
  if (milestones.empty()) return "";
  std::sort(milestones.begin(), milestones.end());
  std::string out = pad_right("", label_width) + pad_right("method", method_width);
  for (int64_t m : milestones) out += pad_left(std::to_string(m), 12);
  out += "\n";
  for (const auto& [label, c] : rows) {
    for (const MethodResult& r : c->results) {
      if (r.best_after.empty()) continue;
      out += pad_right(label, label_width) + pad_right(shown_method(r), method_width);
      for (int64_t m : milestones) {
        auto it = std::find_if(r.best_after.begin(), r.best_after.end(), [&](const auto& p) { return p.first == m; });
        out += pad_left(it == r.best_after.end() ? "-" : std::isfinite(it->second) ? format_seconds(it->second) : "none fits", 12);
      }
      out += "\n";
    }
  }
  return out;
}

namespace {

// v with `digits` digits after the point.
std::string format_fixed(double v, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

}  // namespace

json::Json final_policy_json(const std::optional<FinalPolicy>& f) {
  if (!f) return nullptr;
  return {{"updates", f->updates},
          {"restarts", f->restarts},
          {"samples", f->samples},
          {"mean_sample_step_time_s", number_or_null(f->mean_sample_step_s)},
          {"samples_fit_fraction", f->samples > 0 ? json::Json(f->fit_fraction) : json::Json(nullptr)},
          {"entropy_per_decision", number_or_null(f->entropy_per_decision)},
          {"greedy_step_time_s", f->greedy_step_s ? json::Json(*f->greedy_step_s) : json::Json(nullptr)},
          {"greedy_oom", f->greedy_step_s ? json::Json(f->greedy_oom) : json::Json(nullptr)}};
}

std::optional<FinalPolicy> final_policy_from_json(const json::Json& j) {
  if (j.is_null()) return std::nullopt;
  auto number = [](const json::Json& v) { return v.is_null() ? kNan : v.get<double>(); };
  FinalPolicy f;
  f.updates = j.at("updates").get<int64_t>();
  f.samples = j.at("samples").get<int64_t>();
  if (j.contains("restarts")) f.restarts = j.at("restarts").get<int64_t>();  // absent in answers before --restart-after
  f.mean_sample_step_s = number(j.at("mean_sample_step_time_s"));
  f.fit_fraction = j.at("samples_fit_fraction").is_null() ? 0.0 : j.at("samples_fit_fraction").get<double>();
  f.entropy_per_decision = number(j.at("entropy_per_decision"));
  if (!j.at("greedy_step_time_s").is_null()) {
    f.greedy_step_s = j.at("greedy_step_time_s").get<double>();
    f.greedy_oom = j.at("greedy_oom").get<bool>();
  }
  return f;
}

std::string final_policy_line(const FinalPolicy& f) {
  std::ostringstream out;
  out << (f.updates > 0 ? "after " + std::to_string(f.updates) + " updates" : std::string("not trained in this run"));
  if (f.restarts > 0) out << " and " << f.restarts << (f.restarts == 1 ? " restart" : " restarts");
  if (f.samples > 0) {
    const int64_t fits = std::llround(f.fit_fraction * static_cast<double>(f.samples));
    const std::string which = (f.updates > 0 ? "its last " : "its ") + std::to_string(f.samples) + " samples";
    if (fits > 0) {
      out << ", " << which << " average " << format_seconds(f.mean_sample_step_s) << " ("
          << (fits == f.samples ? std::string("all fit") : std::to_string(fits) + " fit");
    } else {
      out << ", none of " << which << " fits (";
    }
    if (std::isfinite(f.entropy_per_decision))
      out << (fits > 0 ? "; " : "") << "entropy " << format_fixed(f.entropy_per_decision, 3) << " nats per decision";
    out << ")";
  }
  out << "; " << (f.greedy_step_s ? "its greedy decode " + format_seconds(*f.greedy_step_s) + (f.greedy_oom ? " (OOM)" : "")
                                  : std::string("no evaluation was left for its greedy decode"));
  return out.str();
}

std::string final_policies_table(const std::vector<std::pair<std::string, const Comparison*>>& rows) {
  size_t label_width = 0, method_width = 8;
  bool any = false;
  for (const auto& [label, c] : rows) {
    for (const MethodResult& r : c->results) {
      if (!r.run || !r.run->final_policy) continue;
      any = true;
      if (!label.empty()) label_width = std::max(label_width, label.size() + 2);
      method_width = std::max(method_width, shown_method(r).size() + 2);
    }
  }
  if (!any) return "";
  std::string out =
      "\nthe learned policies at the end (mean sample: the last update's samples that fit; greedy: its most\n"
      "likely placement; entropy: nats per decision; answer: the best placement evaluated):\n" +
      pad_right("", label_width) + pad_right("method", method_width) + pad_left("updates", 9) +
                    pad_left("mean sample", 13) + pad_left("samples", 9) + pad_left("greedy", 12) + pad_left("entropy", 9) +
                    pad_left("answer", 12) + "\n";
  for (const auto& [label, c] : rows) {
    for (const MethodResult& r : c->results) {
      if (!r.run || !r.run->final_policy) continue;
      const FinalPolicy& f = *r.run->final_policy;
      const int64_t fits = std::llround(f.fit_fraction * static_cast<double>(f.samples));
      out += pad_right(label, label_width) + pad_right(shown_method(r), method_width) + pad_left(std::to_string(f.updates), 9) +
             pad_left(f.samples == 0 ? "-" : fits == 0 ? "none fits" : format_seconds(f.mean_sample_step_s), 13) +
             pad_left(f.samples == 0 ? "-" : fits == f.samples ? std::to_string(f.samples) : std::to_string(fits) + "/" + std::to_string(f.samples), 9) +
             pad_left(f.greedy_step_s ? format_seconds(*f.greedy_step_s) + (f.greedy_oom ? " OOM" : "") : "-", 12) +
             pad_left(std::isfinite(f.entropy_per_decision) ? format_fixed(f.entropy_per_decision, 3) : "-", 9) +
             pad_left(format_seconds(r.run->evaluation.step_time_s), 12) + "\n";
    }
  }
  return out;
}

std::string_view binding_part(const LowerBound& bound) {
  const double v = bound.value_s();
  if (bound.critical_path_s == v) return "critical path";
  if (bound.load_s == v) return "load";
  return "group";
}

json::Json lower_bound_json(const LowerBound& bound) {
  return {{"critical_path_s", bound.critical_path_s},
          {"load_s", bound.load_s},
          {"group_s", bound.group_s},
          {"binding", std::string(binding_part(bound))}};
}

double ratio(double a, double b) {
  if (!(a > 0) || !(b > 0) || !std::isfinite(a) || !std::isfinite(b)) return kNan;
  return a / b;
}

json::Json budget_json(const Budget& budget) {
  return {{"seconds", budget.seconds > 0 ? json::Json(budget.seconds) : json::Json(nullptr)},
          {"evaluations", budget.evaluations > 0 ? json::Json(budget.evaluations) : json::Json(nullptr)}};
}

json::Json number_or_null(double v) { return std::isfinite(v) ? json::Json(v) : json::Json(nullptr); }

}  // namespace devplace::cli
