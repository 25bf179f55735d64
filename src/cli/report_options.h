// File: report_options.h
// --report FILE on place and compare (the HTML report of report/report.h),
// and the report section a comparison or a single run makes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/method_comparison.h"
#include "common/status.h"
#include "report/report.h"

namespace devplace::cli {

std::vector<OptionSpec> with_report_option(std::vector<OptionSpec> options);

// The --report path, if given (an empty one is an error naming the flag).
Result<std::optional<std::string>> report_path(const Args& args);

// One section: every method of the comparison, in its order.
report::Section comparison_section(std::string title, const Problem& problem, const Comparison& comparison);
// A learned run's policy at the end, into its report entry (nothing
// without one).
void set_final_policy(report::Entry& entry, const std::optional<FinalPolicy>& policy);

// A title for a problem: "GRAPH on CLUSTER".
std::string problem_title(const Problem& problem);

// The training curve of --training-log, when a learned method wrote one.
Result<std::vector<report::TrainingCurve>> training_curves(const std::string& log_path);

// Writes the report and says so on stderr.
Status write_report(const std::string& path, const report::Report& report);

}  // namespace devplace::cli
