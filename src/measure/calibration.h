// File: calibration.h
// Simulator fidelity against measured runs (`devplace calibrate`): the
// placements worth measuring, the rank correlation of simulated and measured
// step times, and the per-device time_scale (cluster/cluster.h) that makes
// the simulator agree with the measurements.
#pragma once

#include <string>
#include <vector>

#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace {

// Every co-location group on `device` when the device may run it, else on
// the first device that may (ops without a kernel there, pins).
Placement all_on_device(const Problem& problem, DeviceId device);

// Spearman's rank correlation of two equally long series (ties get their
// average rank). NaN for fewer than 2 points or a constant series.
double spearman_rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

// One placement with both times.
struct CalibrationPoint {
  std::string label;
  Placement placement;
  double simulated_s = 0;
  double measured_s = 0;  // NaN when it could not be measured (failed or OOM)
};

// time_scale per device of `problem`'s cluster: for each device d with an
// all_on_device(d) point in `points` that puts every op on d and was
// measured, measured / simulated times d's present time_scale; other
// devices keep theirs. `fitted[d]` says which were fitted.
struct TimeScales {
  std::vector<double> scale;
  std::vector<bool> fitted;
};
TimeScales fit_time_scales(const Problem& problem, const std::vector<CalibrationPoint>& points);

}  // namespace devplace
