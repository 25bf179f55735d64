// File: list_schedule.cc
// The schedule under construction shared by the list-scheduling placers (see list_schedule.h).
#include "place/list_schedule.h"

#include <algorithm>

#include "common/check.h"

namespace devplace {

TransferCost mean_transfer_cost(const Problem& problem) {
  TransferCost mean;
  int pairs = 0;
  for (DeviceId a = 0; a < problem.num_devices(); ++a) {
    for (DeviceId b = 0; b < problem.num_devices(); ++b) {
      if (a == b) continue;
      mean.latency_s += problem.transfer_cost(a, b).latency_s;
      mean.seconds_per_byte += problem.transfer_cost(a, b).seconds_per_byte;
      ++pairs;
    }
  }
  if (pairs > 0) {
    mean.latency_s /= pairs;
    mean.seconds_per_byte /= pairs;
  }
  return mean;
}

ListSchedule::ListSchedule(const Problem& problem, const Grouping& grouping, const ListScheduleOptions& options)
    : problem_(&problem),
      grouping_(&grouping),
      options_(options),
      device_of_op_(problem.num_ops(), kNoId),
      finish_s_(problem.num_ops(), 0.0),
      group_device_(grouping.num_groups(), kNoId),
      device_free_s_(problem.num_devices(), 0.0),
      busy_(problem.num_devices()),
      copies_(problem.graph().num_tensors(), 0),
      pending_consumers_(problem.graph().num_tensors(), 0),
      used_bytes_(problem.num_devices(), 0),
      peak_bytes_(problem.num_devices(), 0),
      limit_bytes_(options.binding_limit_bytes) {
  if (limit_bytes_.empty()) {
    for (DeviceId d = 0; d < problem.num_devices(); ++d) limit_bytes_.push_back(problem.cluster().device(d).memory_bytes);
  }
  DEVPLACE_CHECK(static_cast<int>(limit_bytes_.size()) == problem.num_devices());
  channel_free_s_.assign(problem.cluster().num_channels(), 0.0);
  arrival_s_.assign(static_cast<size_t>(problem.graph().num_tensors()) * problem.num_devices(), 0.0);
  for (const Op& op : problem.graph().ops()) {
    for (TensorId t : op.inputs) ++pending_consumers_[t];
  }
}

double ListSchedule::plan_inputs(OpId op, DeviceId device, std::vector<Transfer>* transfers) const {
  const Graph& g = problem_->graph();
  const int nd = problem_->num_devices();
  planned_.clear();  // channel times this op's own earlier transfers would set
  auto channel_free = [&](ChannelId ch) {
    for (const auto& [c, t] : planned_) {
      if (c == ch) return t;
    }
    return channel_free_s_[ch];
  };
  double ready = 0;
  for (TensorId t : g.op(op).inputs) {
    const Tensor& tensor = g.tensor(t);
    const DeviceId from = device_of_op_[tensor.producer];
    DEVPLACE_CHECK(from != kNoId);
    if ((copies_[t] >> device) & 1u) {
      ready = std::max(ready, arrival_s_[static_cast<size_t>(t) * nd + device]);
      continue;
    }
    const Route& route = problem_->cluster().route(from, device);
    double start = finish_s_[tensor.producer];
    if (options_.link_contention) {
      for (ChannelId ch : route.channels) start = std::max(start, channel_free(ch));
    }
    const double end = start + problem_->transfer_time_s(tensor.bytes, from, device);
    for (ChannelId ch : route.channels) {
      bool found = false;
      for (auto& [c, time] : planned_) {
        if (c == ch) {
          time = end;
          found = true;
        }
      }
      if (!found) planned_.emplace_back(ch, end);
    }
    if (transfers) transfers->push_back({t, start, end});
    ready = std::max(ready, end);
  }
  return ready;
}

double ListSchedule::data_ready_s(OpId op, DeviceId device) const { return plan_inputs(op, device, nullptr); }

double ListSchedule::earliest_start_s(DeviceId device, double ready_s, double duration_s, bool insertion) const {
  if (!insertion) return std::max(ready_s, device_free_s_[device]);
  const std::map<double, double>& busy = busy_[device];
  double candidate = ready_s;
  auto it = busy.upper_bound(ready_s);
  if (it != busy.begin()) candidate = std::max(candidate, std::prev(it)->second);
  for (int scanned = 0; it != busy.end(); ++it, ++scanned) {
    if (scanned == kMaxGapScan) return std::max(ready_s, device_free_s_[device]);
    if (candidate + duration_s <= it->first) return candidate;
    candidate = std::max(candidate, it->second);
  }
  return candidate;
}

int64_t ListSchedule::added_bytes(OpId op, DeviceId device) const {
  const Graph& g = problem_->graph();
  const int32_t group = grouping_->group_of(op);
  int64_t bytes = group_device_[group] == kNoId ? grouping_->resident_bytes(group) : 0;
  for (TensorId t : g.op(op).outputs) bytes += g.tensor(t).bytes;
  for (TensorId t : g.op(op).inputs) {
    if (!((copies_[t] >> device) & 1u)) bytes += g.tensor(t).bytes;
  }
  return bytes;
}

bool ListSchedule::eligible(OpId op, DeviceId device) const {
  const int32_t group = grouping_->group_of(op);
  if (!grouping_->allows(group, device)) return false;
  if (group_device_[group] != kNoId) return group_device_[group] == device;
  return used_bytes_[device] + added_bytes(op, device) <= limit_bytes_[device];
}

DeviceId ListSchedule::roomiest_device(OpId op) const {
  const int32_t group = grouping_->group_of(op);
  if (group_device_[group] != kNoId) return group_device_[group];
  DeviceId best = kNoId;
  int64_t best_room = 0;
  for (DeviceId d = 0; d < problem_->num_devices(); ++d) {
    if (!grouping_->allows(group, d)) continue;
    const int64_t room = problem_->cluster().device(d).memory_bytes - used_bytes_[d] - added_bytes(op, d);
    if (best == kNoId || room > best_room) {
      best = d;
      best_room = room;
    }
  }
  DEVPLACE_CHECK(best != kNoId);
  return best;
}

void ListSchedule::assign(OpId op, DeviceId device, double start_s) {
  const Graph& g = problem_->graph();
  DEVPLACE_CHECK(device_of_op_[op] == kNoId);
  const int32_t group = grouping_->group_of(op);
  if (group_device_[group] == kNoId) {
    group_device_[group] = device;
    used_bytes_[device] += grouping_->resident_bytes(group);
  }
  DEVPLACE_CHECK(group_device_[group] == device);
  const double finish = start_s + problem_->op_time_s(op, device);
  device_of_op_[op] = device;
  finish_s_[op] = finish;
  busy_[device].emplace(start_s, finish);
  device_free_s_[device] = std::max(device_free_s_[device], finish);
  makespan_s_ = std::max(makespan_s_, finish);

  // Transfers hold their channels; copies of the inputs arrive and the
  // outputs are written; then tensors whose last consumer this was, and
  // outputs nobody reads, are freed.
  const int nd = problem_->num_devices();
  std::vector<Transfer> transfers;
  plan_inputs(op, device, &transfers);
  for (const Transfer& tr : transfers) {
    const Route& route = problem_->cluster().route(device_of_op_[g.tensor(tr.tensor).producer], device);
    for (ChannelId ch : route.channels) channel_free_s_[ch] = std::max(channel_free_s_[ch], tr.end_s);
    copies_[tr.tensor] |= uint64_t{1} << device;
    arrival_s_[static_cast<size_t>(tr.tensor) * nd + device] = tr.end_s;
    used_bytes_[device] += g.tensor(tr.tensor).bytes;
  }
  for (TensorId t : g.op(op).outputs) {
    copies_[t] = uint64_t{1} << device;
    arrival_s_[static_cast<size_t>(t) * nd + device] = finish;
    used_bytes_[device] += g.tensor(t).bytes;
  }
  peak_bytes_[device] = std::max(peak_bytes_[device], used_bytes_[device]);
  auto release = [&](TensorId t) {
    for (DeviceId d = 0; d < problem_->num_devices(); ++d) {
      if ((copies_[t] >> d) & 1u) used_bytes_[d] -= g.tensor(t).bytes;
    }
    copies_[t] = 0;
  };
  for (TensorId t : g.op(op).inputs) {
    if (--pending_consumers_[t] == 0) release(t);
  }
  for (TensorId t : g.op(op).outputs) {
    if (pending_consumers_[t] == 0) release(t);
  }
}

Placement ListSchedule::placement() const {
  Placement p;
  p.device_of_op = device_of_op_;
  for (DeviceId d : p.device_of_op) DEVPLACE_CHECK(d != kNoId);
  return p;
}

}  // namespace devplace
