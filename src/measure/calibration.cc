// File: calibration.cc
#include "measure/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace devplace {

Placement all_on_device(const Problem& problem, DeviceId device) {
  const Graph& g = problem.graph();
  std::vector<DeviceId> group_device(static_cast<size_t>(g.num_groups()), device);
  for (GroupId grp = 0; grp < g.num_groups(); ++grp) {
    if (problem.allows(grp, device)) continue;
    for (DeviceId d = 0; d < problem.num_devices(); ++d) {
      if (problem.allows(grp, d)) {
        group_device[grp] = d;
        break;
      }
    }
  }
  Placement p;
  p.device_of_op.resize(static_cast<size_t>(problem.num_ops()));
  for (OpId op = 0; op < problem.num_ops(); ++op) p.device_of_op[op] = group_device[g.group_of(op)];
  return p;
}

namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double average = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (size_t k = i; k <= j; ++k) r[order[k]] = average;
    i = j + 1;
  }
  return r;
}

}  // namespace

double spearman_rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size();
  if (n < 2 || b.size() != n) return std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double mean = (static_cast<double>(n) + 1.0) / 2.0;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < n; ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (va == 0 || vb == 0) return std::numeric_limits<double>::quiet_NaN();
  return cov / std::sqrt(va * vb);
}

TimeScales fit_time_scales(const Problem& problem, const std::vector<CalibrationPoint>& points) {
  const int nd = problem.num_devices();
  TimeScales out;
  out.scale.resize(static_cast<size_t>(nd));
  out.fitted.assign(static_cast<size_t>(nd), false);
  for (DeviceId d = 0; d < nd; ++d) out.scale[d] = problem.cluster().device(d).time_scale;
  for (DeviceId d = 0; d < nd; ++d) {
    const Placement alone = all_on_device(problem, d);
    if (std::any_of(alone.device_of_op.begin(), alone.device_of_op.end(), [&](DeviceId x) { return x != d; })) continue;
    for (const CalibrationPoint& p : points) {
      if (p.placement.device_of_op != alone.device_of_op || !std::isfinite(p.measured_s) || !(p.simulated_s > 0)) continue;
      out.scale[d] *= p.measured_s / p.simulated_s;
      out.fitted[d] = true;
      break;
    }
  }
  return out;
}

}  // namespace devplace
