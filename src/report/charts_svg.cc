// File: charts_svg.cc
// Line charts of the report (see svg.h): memory over the step, training curves.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/format.h"
#include "report/svg.h"

namespace devplace::report {

namespace {

constexpr double kWidth = 1160, kLeft = 70, kRight = 170, kTop = 12, kPlot = 190, kBottom = 26;
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string open_svg(const char* cls, double height) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<svg class=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                "font-family=\"sans-serif\" font-size=\"11\">",
                cls, kWidth, height, kWidth, height);
  return buf;
}

double nice_step(double span, int ticks) {
  if (!(span > 0)) return 1;
  const double raw = span / ticks, p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * p >= raw) return m * p;
  }
  return 10 * p;
}

std::string label_of(double v, bool seconds) {
  char buf[32];
  if (seconds) {
    if (v == 0) return "0";
    if (v >= 1) std::snprintf(buf, sizeof buf, "%g s", v);
    else if (v >= 1e-3) std::snprintf(buf, sizeof buf, "%g ms", std::round(v * 1e6) / 1e3);
    else std::snprintf(buf, sizeof buf, "%g us", std::round(v * 1e9) / 1e3);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Axes, grid and tick labels of a plot over [x0, x1] x [y0, y1].
void draw_axes(std::ostringstream& out, double x0, double x1, double y0, double y1, bool x_seconds, bool y_seconds,
               const char* y_unit_suffix) {
  char buf[256];
  const double w = kWidth - kLeft - kRight;
  for (double y = std::ceil(y0 / nice_step(y1 - y0, 5)) * nice_step(y1 - y0, 5); y <= y1 * 1.0001; y += nice_step(y1 - y0, 5)) {
    const double py = kTop + kPlot - (y - y0) / (y1 - y0) * kPlot;
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
                  "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%s%s</text>",
                  kLeft, py, kLeft + w, py, kLeft - 6, py + 4, label_of(y, y_seconds).c_str(), y_unit_suffix);
    out << buf;
  }
  const double xs = nice_step(x1 - x0, 8);
  for (double x = std::ceil(x0 / xs) * xs; x <= x1 * 1.0001; x += xs) {
    const double px = kLeft + (x - x0) / (x1 - x0) * w;
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#e5e5e5\"/>"
                  "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#555\">%s</text>",
                  px, kTop, px, kTop + kPlot, px, kTop + kPlot + 16, label_of(x, x_seconds).c_str());
    out << buf;
  }
  std::snprintf(buf, sizeof buf, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>",
                kLeft, kTop, w, kPlot);
  out << buf;
}

void legend(std::ostringstream& out, int row, const char* colour, const std::string& text, bool dashed = false) {
  char buf[256];
  const double x = kWidth - kRight + 14, y = kTop + 10 + row * 16;
  std::snprintf(buf, sizeof buf,
                "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"%s/>"
                "<text x=\"%.0f\" y=\"%.0f\">",
                x, y, x + 18, y, colour, dashed ? " stroke-dasharray=\"4 3\"" : "", x + 24, y + 4);
  out << buf << html_escape(text) << "</text>";
}

}  // namespace

std::string memory_svg(const Problem& problem, const SimResult& result) {
  const Cluster& c = problem.cluster();
  const int nd = c.num_devices();
  const double span = std::max(result.step_time_s, 1e-12), w = kWidth - kLeft - kRight;
  // Per device and pixel column, the most memory in use there (as % of capacity).
  const int columns = static_cast<int>(w);
  std::vector<std::vector<double>> peak(nd, std::vector<double>(columns + 1, -1));
  std::vector<double> current(nd, 0);
  double top = 100;
  auto column_of = [&](double t) { return std::clamp(static_cast<int>(t / span * columns), 0, columns); };
  std::vector<int> last_column(nd, 0);
  for (const MemorySample& s : result.memory) {
    const double pct = 100.0 * static_cast<double>(s.bytes) / static_cast<double>(c.device(s.device).memory_bytes);
    const int col = column_of(s.time_s);
    // The previous level holds until this sample.
    for (int k = last_column[s.device]; k < col; ++k) peak[s.device][k] = std::max(peak[s.device][k], current[s.device]);
    current[s.device] = pct;
    peak[s.device][col] = std::max(peak[s.device][col], pct);
    last_column[s.device] = col;
    top = std::max(top, pct * 1.05);
  }
  for (int d = 0; d < nd; ++d) {
    for (int k = last_column[d]; k <= columns; ++k) peak[d][k] = std::max(peak[d][k], current[d]);
  }
  const double height = kTop + kPlot + kBottom + std::max(0, nd - 11) * 16;
  std::ostringstream out;
  out << open_svg("memory", height);
  draw_axes(out, 0, span, 0, top, true, false, "%");
  char buf[128];
  const double y100 = kTop + kPlot - 100.0 / top * kPlot;
  std::snprintf(buf, sizeof buf, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"5 4\"/>",
                kLeft, y100, kLeft + w, y100);
  out << buf;
  legend(out, 0, "#c00", "capacity", true);
  for (int d = 0; d < nd; ++d) {
    const char* colour = kPalette[d % std::size(kPalette)];
    out << "<polyline class=\"device-memory\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\" points=\"";
    for (int k = 0; k <= columns; ++k) {
      std::snprintf(buf, sizeof buf, "%.0f,%.1f ", kLeft + k, kTop + kPlot - std::max(0.0, peak[d][k]) / top * kPlot);
      out << buf;
    }
    out << "\"><title>" << html_escape(c.device(d).name) << ": peak " << format_bytes(result.devices[d].peak_memory_bytes)
        << " of " << format_bytes(c.device(d).memory_bytes) << "</title></polyline>";
    legend(out, d + 1, colour, c.device(d).name);
  }
  out << "</svg>";
  return out.str();
}

std::string training_svg(const std::vector<TrainingCurve>& curves) {
  double x1 = 1, y0 = INFINITY, y1 = 0;
  for (const TrainingCurve& t : curves) {
    if (!t.iteration.empty()) x1 = std::max(x1, t.iteration.back());
    for (const std::vector<double>* v : {&t.best_s, &t.mean_s}) {
      for (double s : *v) {
        if (std::isfinite(s) && s < 50) {  // 50 s and more: failure penalties, not times
          y0 = std::min(y0, s);
          y1 = std::max(y1, s);
        }
      }
    }
  }
  if (!std::isfinite(y0)) y0 = 0, y1 = 1;
  const double pad = std::max((y1 - y0) * 0.08, y1 * 0.01);
  y0 = std::max(0.0, y0 - pad);
  y1 += pad;
  const double w = kWidth - kLeft - kRight;
  std::ostringstream out;
  out << open_svg("training", kTop + kPlot + kBottom + std::max<int>(0, static_cast<int>(curves.size()) * 2 - 11) * 16);
  draw_axes(out, 0, x1, y0, y1, false, true, "");
  char buf[64];
  int row = 0;
  for (size_t i = 0; i < curves.size(); ++i) {
    const TrainingCurve& t = curves[i];
    const char* colour = kPalette[i % std::size(kPalette)];
    // At most about two points per pixel.
    const size_t stride = std::max<size_t>(1, t.iteration.size() / (2 * static_cast<size_t>(w)));
    for (int which = 0; which < 2; ++which) {
      const std::vector<double>& v = which == 0 ? t.best_s : t.mean_s;
      out << "<polyline class=\"curve-" << (which == 0 ? "best" : "mean") << "\" fill=\"none\" stroke=\"" << colour << "\" "
          << (which == 0 ? "stroke-width=\"2\"" : "stroke-width=\"1\" stroke-opacity=\"0.45\"") << " points=\"";
      for (size_t k = 0; k < t.iteration.size(); k += stride) {
        if (!std::isfinite(v[k]) || v[k] < y0 || v[k] > y1) continue;
        std::snprintf(buf, sizeof buf, "%.1f,%.1f ", kLeft + t.iteration[k] / x1 * w, kTop + kPlot - (v[k] - y0) / (y1 - y0) * kPlot);
        out << buf;
      }
      out << "\"><title>" << html_escape(t.label) << (which == 0 ? ": best step time so far" : ": mean step time of the update")
          << "</title></polyline>";
    }
    legend(out, row++, colour, t.label + ": best");
    legend(out, row++, colour, t.label + ": mean");
  }
  out << "</svg>";
  return out.str();
}

}  // namespace devplace::report
