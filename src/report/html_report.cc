// File: html_report.cc
// The page of the HTML report (see report.h): each section simulated with
// the timeline, then written as tables and the pictures of svg.h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "common/file_io.h"
#include "common/format.h"
#include "place/run_placer.h"
#include "report/report.h"
#include "report/svg.h"
#include "sim/lower_bound.h"
#include "sim/simulator.h"

namespace devplace::report {

namespace {

constexpr size_t kTimelinesForAll = 4;  // sections with more entries show the fastest one's only

constexpr const char* kStyle = R"(
body { font-family: -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px; color: #222; max-width: 1200px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 18px; margin-top: 36px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; margin: 20px 0 6px; } h4 { font-size: 13px; margin: 14px 0 4px; color: #444; }
.meta { color: #666; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f6f6f6; }
tr.best td { font-weight: 600; background: #f3f8ff; }
td.oom, td.failed { color: #c00; }
details { margin: 10px 0; } summary { cursor: pointer; font-weight: 600; font-size: 14px; }
.legend span { display: inline-block; margin-right: 14px; font-size: 12px; }
.legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: -2px; }
svg { display: block; margin: 4px 0; }
)";

std::string ms(double s) { return std::isfinite(s) ? format_seconds(s) : std::string("-"); }

std::string ratio_text(double a, double b) {
  if (!(a > 0) || !(b > 0) || !std::isfinite(a) || !std::isfinite(b)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", a / b);
  return buf;
}

struct Simulated {
  const Entry* entry;
  SimResult result;  // with the timeline
};

const Simulated* find_label(const std::vector<Simulated>& sims, const std::string& label) {
  for (const Simulated& s : sims) {
    if (s.entry->label == label) return &s;
  }
  return nullptr;
}

// A baseline's step time: its entry's, or the method run here; NaN if it cannot run.
double baseline_s(const Problem& problem, const std::vector<Simulated>& sims, const std::string& method) {
  if (const Simulated* s = find_label(sims, method)) return s->result.oom ? std::nan("") : s->result.step_time_s;
  Simulator sim(problem);
  Result<PlacerRun> run = run_placer(method, problem, sim);
  if (!run.ok() || run.value().evaluation.oom) return std::nan("");
  return run.value().evaluation.step_time_s;
}

void legend(std::ostringstream& out) {
  out << "<div class=\"legend\"><span><i style=\"background:#4e79a7\"></i>forward</span>"
         "<span><i style=\"background:#f28e2b\"></i>backward</span><span><i style=\"background:#59a14f\"></i>update</span>"
         "<span><i style=\"background:#b07aa1\"></i>transfer (on each link of its route)</span>"
         "<span><i style=\"background:#f1f1f1;border:1px solid #ccc\"></i>idle</span></div>";
}

void device_table(std::ostringstream& out, const Problem& problem, const SimResult& r) {
  const Cluster& c = problem.cluster();
  out << "<table class=\"devices\"><thead><tr><th>device</th><th>ops</th><th>busy</th><th>utilization</th><th>bytes in</th>"
         "<th>bytes out</th><th>peak memory</th><th>capacity</th></tr></thead><tbody>";
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    const DeviceStats& s = r.devices[d];
    const bool oom = s.peak_memory_bytes > c.device(d).memory_bytes;
    char util[32];
    std::snprintf(util, sizeof util, "%.0f%%", r.step_time_s > 0 ? 100.0 * s.busy_s / r.step_time_s : 0.0);
    out << "<tr class=\"device-row\"><td>" << html_escape(c.device(d).name) << "</td><td>" << s.num_ops << "</td><td>"
        << ms(s.busy_s) << "</td><td>" << util << "</td><td>" << format_bytes(s.bytes_in) << "</td><td>"
        << format_bytes(s.bytes_out) << "</td><td" << (oom ? " class=\"oom\"" : "") << ">" << format_bytes(s.peak_memory_bytes)
        << (oom ? " (OOM)" : "") << "</td><td>" << format_bytes(c.device(d).memory_bytes) << "</td></tr>";
  }
  out << "</tbody></table>";
}

Status write_section(std::ostringstream& out, const Section& section, int index) {
  const Problem& problem = *section.problem;
  Simulator sim(problem);
  std::vector<Simulated> sims;
  for (const Entry& e : section.entries) {
    if (!e.error.empty()) continue;
    const Status s = sim.run(e.placement, SimOptions{.record_timeline = true});
    if (!s.ok()) return s.error().with_prefix(section.title + ": " + e.label);
    sims.push_back({&e, sim.result()});
  }
  const double bound = compute_lower_bound(problem).value_s();
  const double single = baseline_s(problem, sims, "single-gpu"), expert = baseline_s(problem, sims, "expert");
  // The fastest that fits, else the fastest.
  const Simulated* best = nullptr;
  for (const Simulated& s : sims) {
    const bool better = !best || (best->result.oom && !s.result.oom) ||
                        (best->result.oom == s.result.oom && s.result.step_time_s < best->result.step_time_s);
    if (better) best = &s;
  }

  out << "<section class=\"problem\" id=\"section-" << index << "\"><h2>" << html_escape(section.title) << "</h2>";
  const Graph& g = problem.graph();
  out << "<table class=\"summary\"><tbody>"
      << "<tr><td>graph</td><td>" << html_escape(g.name()) << " (" << g.num_ops() << " ops"
      << (g.has_backward() ? ", training step" : ", forward only") << ")</td></tr>"
      << "<tr><td>cluster</td><td>" << html_escape(problem.cluster().name()) << " (" << problem.cluster().num_devices()
      << " devices)</td></tr>";
  if (best) {
    const double t = best->result.step_time_s;
    out << "<tr><td>fastest</td><td>" << html_escape(best->entry->label) << "</td></tr>"
        << "<tr><td>step time</td><td>" << ms(t) << "</td></tr>"
        << "<tr><td>lower bound</td><td>" << ms(bound) << " (the step is " << ratio_text(t, bound) << " the bound)</td></tr>"
        << "<tr><td>OOM</td><td" << (best->result.oom ? " class=\"oom\">yes" : ">no") << "</td></tr>"
        << "<tr><td>speed-up over single GPU</td><td>" << ratio_text(single, t) << " (" << ms(single) << ")</td></tr>"
        << "<tr><td>speed-up over expert</td><td>" << ratio_text(expert, t) << " (" << ms(expert) << ")</td></tr>";
  }
  out << "</tbody></table>";

  // A learned method's policy at the end, beside its answer: a column only
  // when some entry has one.
  const bool policies = std::any_of(section.entries.begin(), section.entries.end(), [](const Entry& e) {
    return std::isfinite(e.policy_mean_sample_s) || std::isfinite(e.policy_greedy_s);
  });
  out << "<h3>Placements</h3><table class=\"comparison\"><thead><tr><th>placement</th><th>step time</th><th>vs bound</th>"
         "<th>over single GPU</th><th>over expert</th><th>OOM</th>"
      << (policies ? "<th title=\"a learned method's policy at the end: the mean step time of its last update's samples "
                     "that fit, and its greedy decode's\">policy: mean sample / greedy</th>"
                   : "")
      << "<th>search time</th><th>evaluations</th></tr></thead><tbody>";
  for (const Entry& e : section.entries) {
    const Simulated* s = nullptr;
    for (const Simulated& x : sims) {
      if (x.entry == &e) s = &x;
    }
    out << "<tr class=\"method-row" << (s && s == best ? " best" : "") << "\"><td>" << html_escape(e.label) << "</td>";
    if (!s) {
      out << "<td class=\"failed\" colspan=\"" << (policies ? 8 : 7) << "\">failed: " << html_escape(e.error) << "</td></tr>";
      continue;
    }
    const double t = s->result.step_time_s;
    out << "<td>" << ms(t) << "</td><td>" << ratio_text(t, bound) << "</td><td>" << ratio_text(single, t) << "</td><td>"
        << ratio_text(expert, t) << "</td><td" << (s->result.oom ? " class=\"oom\">yes" : ">no") << "</td><td>";
    if (policies) {
      out << (std::isfinite(e.policy_mean_sample_s) ? ms(e.policy_mean_sample_s) : std::string("-")) << " / "
          << (std::isfinite(e.policy_greedy_s) ? ms(e.policy_greedy_s) : std::string("-")) << "</td><td>";
    }
    out << (std::isfinite(e.search_time_s) ? ms(e.search_time_s) : std::string("-")) << "</td><td>"
        << (e.evaluations >= 0 ? std::to_string(e.evaluations) : std::string("-")) << "</td></tr>";
  }
  out << "</tbody></table>";

  const bool all = sims.size() <= kTimelinesForAll;
  if (!all && best)
    out << "<p class=\"meta\">The timeline of the fastest placement; " << sims.size() - 1
        << " others are in the table (a report of fewer than " << kTimelinesForAll + 1 << " placements shows each).</p>";
  for (const Simulated& s : sims) {
    if (!all && &s != best) continue;
    out << "<details class=\"placement\"" << (&s == best ? " open" : "") << "><summary>" << html_escape(s.entry->label) << ": "
        << ms(s.result.step_time_s) << (s.result.oom ? " (OOM)" : "") << "</summary>";
    out << "<h4>Timeline of one simulated step</h4>";
    legend(out);
    out << timeline_svg(problem, s.result);
    out << "<h4>Memory in use, as a share of each device's capacity</h4>" << memory_svg(problem, s.result);
    out << "<h4>Per device</h4>";
    device_table(out, problem, s.result);
    out << "</details>";
  }
  out << "</section>";
  return Status::ok_status();
}

}  // namespace

Result<std::string> render_html(const Report& report) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << html_escape(report.title)
      << "</title><style>" << kStyle << "</style></head><body>";
  out << "<h1>" << html_escape(report.title) << "</h1><p class=\"meta\">devplace report: " << report.sections.size()
      << (report.sections.size() == 1 ? " problem" : " problems")
      << ". Times are simulated (one training step); hover over a bar for its op or transfer.</p>";
  for (size_t i = 0; i < report.sections.size(); ++i) DEVPLACE_RETURN_IF_ERROR(write_section(out, report.sections[i], static_cast<int>(i)));
  if (!report.curves.empty()) {
    out << "<section class=\"training\"><h2>Training</h2><p class=\"meta\">Best step time so far (solid) and the mean "
           "step time of each update's samples (faint), per policy update.</p>"
        << training_svg(report.curves) << "</section>";
  }
  out << "</body></html>\n";
  return out.str();
}

Status write_html_report(const std::string& path, const Report& report) {
  DEVPLACE_ASSIGN_OR_RETURN(const std::string html, render_html(report));
  return write_text_file(path, html);
}

}  // namespace devplace::report
