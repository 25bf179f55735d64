// File: m_etf.cc
// Earliest Task First over a lazily updated heap (see m_etf.h).
//
// Each ready op sits in a min-heap under its earliest start when it was
// pushed. Device free times only grow, so a key never overstates how early
// an op can start; the popped op is re-costed and scheduled only if it
// still starts no later than the next key, else it goes back with its new
// key. That is exact ETF at O(log n) per step for graphs of bounded width.
#include "place/m_etf.h"

#include <algorithm>
#include <limits>
#include <queue>

#include "common/check.h"
#include "place/device_choice.h"
#include "sim/simulator.h"

namespace devplace {

namespace {

struct Choice {
  double start = std::numeric_limits<double>::infinity();
  double finish = std::numeric_limits<double>::infinity();
  DeviceId device = kNoId;
};

struct Entry {
  double start;
  int32_t topo;
  OpId op;
  bool operator>(const Entry& other) const { return start != other.start ? start > other.start : topo > other.topo; }
};

// `devices`: where the op may go (the GPUs, or every device for ops no GPU can run).
Choice best_choice(const Problem& problem, const ListSchedule& schedule, OpId op, DeviceMask devices, DeviceId only) {
  Choice best;
  auto consider = [&](DeviceId d) {
    const double duration = problem.op_time_s(op, d);
    const double start = schedule.earliest_start_s(d, schedule.data_ready_s(op, d), duration, /*insertion=*/false);
    if (start < best.start || (start == best.start && start + duration < best.finish)) best = {start, start + duration, d};
  };
  if (only != kNoId && ((devices >> only) & 1u) && schedule.eligible(op, only)) {
    consider(only);
    return best;
  }
  for (DeviceId d = 0; d < problem.num_devices(); ++d) {
    if (((devices >> d) & 1u) && schedule.eligible(op, d)) consider(d);
  }
  if (best.device == kNoId) consider(schedule.roomiest_device(op));
  return best;
}

// One ETF schedule under the given binding limits.
ListSchedule etf_schedule_once(const Problem& problem, const Grouping& grouping, const std::vector<OpId>& favourite_parent,
                               const ListScheduleOptions& options) {
  const Graph& g = problem.graph();
  ListSchedule schedule(problem, grouping, options);
  DeviceMask gpus = 0;
  for (DeviceId d : gpus_or_all_devices(problem.cluster())) gpus |= DeviceMask{1} << d;
  auto devices_for = [&](OpId op) {
    const DeviceMask allowed = grouping.allowed_devices(grouping.group_of(op));
    return (allowed & gpus) != 0 ? gpus : allowed;
  };
  auto preferred = [&](OpId op) {
    if (favourite_parent.empty() || favourite_parent[op] == kNoId) return kNoId;
    return schedule.bound_device(favourite_parent[op]);
  };

  std::vector<int32_t> waiting(g.num_ops(), 0);  // unscheduled producers (one per distinct input tensor)
  for (const Tensor& t : g.tensors()) {
    for (OpId c : t.consumers) ++waiting[c];
  }
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  auto choose = [&](OpId op) { return best_choice(problem, schedule, op, devices_for(op), preferred(op)); };
  auto push = [&](OpId op) { heap.push({choose(op).start, g.topo_index(op), op}); };
  for (OpId op = 0; op < g.num_ops(); ++op) {
    if (waiting[op] == 0) push(op);
  }
  while (!heap.empty()) {
    const Entry e = heap.top();
    heap.pop();
    const Choice c = choose(e.op);
    if (!heap.empty() && c.start > heap.top().start) {
      heap.push({c.start, e.topo, e.op});
      continue;
    }
    schedule.assign(e.op, c.device, c.start);
    for (TensorId t : g.op(e.op).outputs) {
      for (OpId consumer : g.tensor(t).consumers) {
        if (--waiting[consumer] == 0) push(consumer);
      }
    }
  }
  return schedule;
}

// Per device, the simulator's peak memory for the schedule's placement:
// the memory model the result is judged by. (The schedule's own estimate
// frees and allocates in scheduling order, the simulator in its execution
// order, and the two differ by a few percent.)
std::vector<int64_t> simulated_peaks(Simulator& simulator, const ListSchedule& schedule) {
  Result<Evaluation> e = simulator.evaluate(schedule.placement());
  DEVPLACE_CHECK(e.ok());  // the schedule puts every op where its group allows
  return e.value().peak_memory_bytes;
}

// Bytes by which the peaks exceed the capacities, summed.
int64_t overflow_bytes(const Problem& problem, const std::vector<int64_t>& peaks) {
  int64_t total = 0;
  for (DeviceId d = 0; d < problem.num_devices(); ++d)
    total += std::max<int64_t>(0, peaks[d] - problem.cluster().device(d).memory_bytes);
  return total;
}

}  // namespace

ListSchedule etf_schedule(const Problem& problem, const Grouping& grouping, const std::vector<OpId>& favourite_parent) {
  ListScheduleOptions options;
  for (const Device& d : problem.cluster().devices()) options.binding_limit_bytes.push_back(d.memory_bytes);
  Simulator simulator(problem);
  ListSchedule current = etf_schedule_once(problem, grouping, favourite_parent, options);
  std::vector<int64_t> peaks = simulated_peaks(simulator, current);
  ListSchedule best = current;
  int64_t best_overflow = overflow_bytes(problem, peaks);
  // A group's later ops follow it to its device whatever they add, and the
  // simulator frees memory in another order than the schedule, so a device
  // can end past capacity though each binding fitted. Bind under a lower
  // limit there, by what it went over and k% of its capacity more in round
  // k, and schedule again; keep the first schedule that fits, else the one
  // that overflows least.
  // Three rounds in a row without less overflow end it (on a graph that
  // fits nowhere, after three more schedules rather than twelve).
  int stale_rounds = 0;
  for (int round = 0; round < kEtfTighteningRounds && best_overflow > 0 && stale_rounds < 3; ++round) {
    bool lowered = false;
    for (DeviceId d = 0; d < problem.num_devices(); ++d) {
      const int64_t capacity = problem.cluster().device(d).memory_bytes;
      const int64_t over = peaks[d] - capacity;
      if (over <= 0) continue;
      int64_t& limit = options.binding_limit_bytes[d];
      limit = std::max<int64_t>(0, limit - over - capacity / 100 * (round + 1));
      lowered = true;
    }
    if (!lowered) break;
    current = etf_schedule_once(problem, grouping, favourite_parent, options);
    peaks = simulated_peaks(simulator, current);
    const int64_t overflow = overflow_bytes(problem, peaks);
    if (overflow < best_overflow) {
      best = current;
      best_overflow = overflow;
      stale_rounds = 0;
    } else {
      ++stale_rounds;
    }
  }
  return best;
}

Result<Placement> MEtfPlacer::place(const PlaceContext& ctx) { return etf_schedule(ctx.problem, ctx.grouping).placement(); }

}  // namespace devplace
