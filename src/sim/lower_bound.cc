// File: lower_bound.cc
// Critical-path, load and group bounds on the step time (see lower_bound.h).
//
// The load bound. Let x[g][d] >= 0 with sum_d x[g][d] = 1 be a fractional
// assignment of groups to allowed devices and T the largest device load
// sum_g x[g][d] t[g][d]. For weights w on the simplex, T >= sum_d w[d] load[d]
// >= sum_g min_d w[d] t[g][d] =: L(w), so every w gives a bound, and the best
// w gives the LP optimum (duality). L is concave; we climb it with
// multiplicative (exponentiated subgradient) steps, whose subgradient is the
// load each device gets when every group goes where w makes it cheapest, and
// keep the best value seen.
#include "sim/lower_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace devplace {

double LowerBound::value_s() const { return std::max({critical_path_s, load_s, group_s}); }

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double load_bound(const std::vector<double>& work, int num_groups, int nd) {
  if (num_groups == 0) return 0;
  // Start from weights proportional to each device's speed on this graph.
  std::vector<double> w(nd, 0.0);
  for (DeviceId d = 0; d < nd; ++d) {
    double total = 0;
    for (int g = 0; g < num_groups; ++g) {
      if (work[static_cast<size_t>(g) * nd + d] < kInf) total += work[static_cast<size_t>(g) * nd + d];
    }
    w[d] = total > 0 ? 1.0 / total : 0.0;
  }
  auto normalise = [&] {
    double s = 0;
    for (double v : w) s += v;
    for (double& v : w) v = s > 0 ? v / s : 1.0 / nd;
  };
  normalise();
  double best = 0;
  std::vector<double> load(nd);
  constexpr int kIterations = 300;
  for (int it = 0; it < kIterations; ++it) {
    std::fill(load.begin(), load.end(), 0.0);
    double value = 0;
    for (int g = 0; g < num_groups; ++g) {
      const double* t = &work[static_cast<size_t>(g) * nd];
      double cheapest = kInf;
      DeviceId arg = 0;
      for (DeviceId d = 0; d < nd; ++d) {
        if (t[d] < kInf && w[d] * t[d] < cheapest) {
          cheapest = w[d] * t[d];
          arg = d;
        }
      }
      value += cheapest;
      load[arg] += t[arg];
    }
    best = std::max(best, value);
    // Raise the weight of devices loaded above the weighted mean, lower the others.
    double mean = 0;
    for (DeviceId d = 0; d < nd; ++d) mean += w[d] * load[d];
    if (mean <= 0) break;
    const double step = 1.0 / std::sqrt(1.0 + it);
    for (DeviceId d = 0; d < nd; ++d) w[d] *= std::exp(step * std::clamp(load[d] / mean - 1.0, -1.0, 1.0));
    normalise();
  }
  return best;
}

}  // namespace

LowerBound compute_lower_bound(const Problem& problem) {
  const Graph& g = problem.graph();
  const int nd = problem.num_devices();
  LowerBound lb;

  // Fastest allowed time of each op (its group's devices), and the longest chain of them.
  std::vector<double> fastest(g.num_ops(), kInf);
  for (OpId id = 0; id < g.num_ops(); ++id) {
    const GroupId grp = g.group_of(id);
    for (DeviceId d = 0; d < nd; ++d) {
      if (problem.allows(grp, d)) fastest[id] = std::min(fastest[id], problem.op_time_s(id, d));
    }
  }
  std::vector<double> finish(g.num_ops(), 0.0);
  for (OpId id : g.topo_order()) {
    double start = 0;
    for (TensorId t : g.op(id).inputs) start = std::max(start, finish[g.tensor(t).producer]);
    finish[id] = start + fastest[id];
    lb.critical_path_s = std::max(lb.critical_path_s, finish[id]);
  }

  // Work of each co-location group on each device it may use.
  std::vector<double> work(static_cast<size_t>(g.num_groups()) * nd, kInf);
  for (GroupId grp = 0; grp < g.num_groups(); ++grp) {
    double best = kInf;
    for (DeviceId d = 0; d < nd; ++d) {
      if (!problem.allows(grp, d)) continue;
      double sum = 0;
      for (OpId id : g.group_ops(grp)) sum += problem.op_time_s(id, d);
      work[static_cast<size_t>(grp) * nd + d] = sum;
      best = std::min(best, sum);
    }
    lb.group_s = std::max(lb.group_s, best);
  }
  lb.load_s = load_bound(work, g.num_groups(), nd);
  return lb;
}

}  // namespace devplace
