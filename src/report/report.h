// File: report.h
// The HTML report: one self-contained file (inline CSS and SVG, no script,
// no network) that shows placements of one or more problems: a summary, the
// comparison table, a Gantt timeline of the simulated step (a lane per
// device and per link direction; ops coloured by forward / backward /
// update, transfers on the links, idle time as the empty lane; a hover title
// names each op), memory over time per device against its capacity, per
// device figures, and RL training curves from CSV logs.
//
// The report simulates every placement itself (with the timeline), so its
// figures are the simulator's even when a measurer chose the placements.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/status.h"
#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace::report {

// One placement of a section's problem, or a method that failed on it.
struct Entry {
  std::string label;        // the method name or the placement file
  Placement placement;      // empty for a failed method
  std::string error;        // a failed method's one-line message
  double search_time_s = std::numeric_limits<double>::quiet_NaN();  // NaN: not a method run
  int64_t evaluations = -1;  // evaluator calls the method made; -1: not a method run
  // A learned method's policy at the end (FinalPolicy): its last samples'
  // mean step time and its greedy decode's; NaN when not known.
  double policy_mean_sample_s = std::numeric_limits<double>::quiet_NaN();
  double policy_greedy_s = std::numeric_limits<double>::quiet_NaN();
};

// One problem (graph on cluster) and its placements. Speed-ups are over the
// entries labelled "single-gpu" and "expert" when present; the report runs
// those two methods itself otherwise.
struct Section {
  std::string title;  // e.g. "NMT (2 layers) on k80x4"
  const Problem* problem = nullptr;
  std::vector<Entry> entries;
};

// Best and mean step time per iteration of an RL training log (reinforce.h's CSV).
struct TrainingCurve {
  std::string label;
  std::vector<double> iteration;
  std::vector<double> best_s;  // NaN where no valid placement was seen yet
  std::vector<double> mean_s;  // NaN where an update had no valid sample
};

struct Report {
  std::string title;
  std::vector<Section> sections;
  std::vector<TrainingCurve> curves;
};

// Reads a training log written by --training-log; errors name the file and line.
Result<TrainingCurve> read_training_log(const std::string& path);

// The page. Fails only when a placement does not fit its problem.
Result<std::string> render_html(const Report& report);
Status write_html_report(const std::string& path, const Report& report);

}  // namespace devplace::report
