// File: heft.cc
// HEFT: upward ranks, then insertion-based earliest finish time (see heft.h).
#include "place/heft.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace devplace {

std::vector<double> heft_upward_ranks(const Problem& problem, const Grouping& grouping) {
  const Graph& g = problem.graph();
  const int nd = problem.num_devices();
  const TransferCost edge = mean_transfer_cost(problem);
  std::vector<double> rank(g.num_ops(), 0.0);
  const std::vector<OpId>& topo = g.topo_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const OpId op = *it;
    const int32_t group = grouping.group_of(op);
    double sum = 0;
    int count = 0;
    for (DeviceId d = 0; d < nd; ++d) {
      if (!grouping.allows(group, d)) continue;
      sum += problem.op_time_s(op, d);
      ++count;
    }
    double tail = 0;
    for (TensorId t : g.op(op).outputs) {
      const double transfer = edge.time_s(g.tensor(t).bytes);
      for (OpId c : g.tensor(t).consumers) tail = std::max(tail, transfer + rank[c]);
    }
    rank[op] = sum / count + tail;
  }
  return rank;
}

ListSchedule heft_schedule(const Problem& problem, const Grouping& grouping, const ListScheduleOptions& options) {
  const Graph& g = problem.graph();
  const std::vector<double> rank = heft_upward_ranks(problem, grouping);
  // Decreasing rank is a topological order: a producer's rank is at least its
  // consumer's, and equal ranks fall back to topological order.
  std::vector<OpId> order(g.topo_order());
  std::stable_sort(order.begin(), order.end(), [&](OpId a, OpId b) { return rank[a] > rank[b]; });

  ListSchedule schedule(problem, grouping, options);
  for (OpId op : order) {
    DeviceId best = kNoId;
    double best_finish = std::numeric_limits<double>::infinity(), best_start = 0;
    for (DeviceId d = 0; d < problem.num_devices(); ++d) {
      if (!schedule.eligible(op, d)) continue;
      const double duration = problem.op_time_s(op, d);
      const double start = schedule.earliest_start_s(d, schedule.data_ready_s(op, d), duration, /*insertion=*/true);
      if (start + duration < best_finish) {
        best = d;
        best_finish = start + duration;
        best_start = start;
      }
    }
    if (best == kNoId) {
      best = schedule.roomiest_device(op);
      best_start = schedule.earliest_start_s(best, schedule.data_ready_s(op, best), problem.op_time_s(op, best), true);
    }
    schedule.assign(op, best, best_start);
  }
  return schedule;
}

Result<Placement> HeftPlacer::place(const PlaceContext& ctx) { return heft_schedule(ctx.problem, ctx.grouping).placement(); }

}  // namespace devplace
