// File: report_options.cc
#include "cli/report_options.h"

#include <filesystem>
#include <iostream>

namespace devplace::cli {

std::vector<OptionSpec> with_report_option(std::vector<OptionSpec> options) {
  options.push_back({"report", "FILE", "write an HTML report: tables, timeline, memory, training curve (opens offline)", false, true});
  return options;
}

Result<std::optional<std::string>> report_path(const Args& args) {
  const std::optional<std::string> path = args.get("report");
  if (path && path->empty()) return invalid_input("--report: expected a file name, got ''");
  return path;
}

void set_final_policy(report::Entry& entry, const std::optional<FinalPolicy>& policy) {
  if (!policy) return;
  if (policy->samples > 0) entry.policy_mean_sample_s = policy->mean_sample_step_s;
  if (policy->greedy_step_s) entry.policy_greedy_s = *policy->greedy_step_s;
}

report::Section comparison_section(std::string title, const Problem& problem, const Comparison& comparison) {
  report::Section s{std::move(title), &problem, {}};
  for (const MethodResult& r : comparison.results) {
    report::Entry e;
    e.label = shown_method(r);
    if (r.run) {
      e.placement = r.run->placement;
      e.search_time_s = r.run->search_time_s;
      e.evaluations = r.run->evaluations;
      set_final_policy(e, r.run->final_policy);
    } else {
      e.error = r.error.empty() ? "failed" : r.error;
    }
    s.entries.push_back(std::move(e));
  }
  return s;
}

std::string problem_title(const Problem& problem) { return problem.graph().name() + " on " + problem.cluster().name(); }

Result<std::vector<report::TrainingCurve>> training_curves(const std::string& log_path) {
  std::vector<report::TrainingCurve> curves;
  std::error_code ec;
  if (log_path.empty() || !std::filesystem::exists(log_path, ec)) return curves;
  DEVPLACE_ASSIGN_OR_RETURN(report::TrainingCurve curve, report::read_training_log(log_path));
  curves.push_back(std::move(curve));
  return curves;
}

Status write_report(const std::string& path, const report::Report& report) {
  DEVPLACE_RETURN_IF_ERROR(report::write_html_report(path, report));
  std::cerr << "devplace: wrote the report " << path << "\n";
  return Status::ok_status();
}

}  // namespace devplace::cli
