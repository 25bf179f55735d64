// File: svg.h
// The report's pictures, as inline SVG strings (used by html_report.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/report.h"
#include "sim/problem.h"
#include "sim/simulator.h"

namespace devplace::report {

// &, <, >, " and ' as entities.
std::string html_escape(std::string_view text);

// The Gantt chart of one simulated step (`result` recorded with the
// timeline): a lane (<g class="lane">) per device and per link direction
// that carried a transfer. Ops closer than half a pixel merge into one
// rectangle whose title counts them, so big graphs stay small.
std::string timeline_svg(const Problem& problem, const SimResult& result);

// Memory in use per device over the step, as a share of its capacity.
std::string memory_svg(const Problem& problem, const SimResult& result);

// Best (solid) and mean (faint) step time per iteration of each curve.
std::string training_svg(const std::vector<TrainingCurve>& curves);

}  // namespace devplace::report
