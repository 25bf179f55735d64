// File: list_schedule.h
// ListSchedule: the schedule the list-scheduling placers (heft, m-etf, m-sct)
// build op by op. It estimates, as the simulator would, when each op's inputs
// reach a device (a tensor is sent once per destination device, holding
// every channel of its route, after the producer finishes and the channels
// are free; nothing on the same device), keeps each device's busy
// intervals and each channel's next free time, binds every group of the
// grouping to the device of its first scheduled op, and tracks each device's
// memory: resident bytes of the groups bound to it plus the tensors alive on
// it, a tensor living from its producer until its last consumer is
// scheduled (copies on each consumer's device likewise). A device on which
// an op would push memory past capacity is not eligible for it (Baechi's
// memory constraint, with tensors freed instead of kept all step).
//
// Transfers are appended on the channels in the order ops are scheduled;
// the simulator, which runs ops in ready order, scores the result.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "group/grouping.h"
#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace {

// The transfer cost averaged over ordered pairs of distinct devices: what
// list schedulers charge an edge before they know where its ends go.
TransferCost mean_transfer_cost(const Problem& problem);

struct ListScheduleOptions {
  // Transfers wait for the channels of their route. Off: every transfer
  // starts when its producer ends (the classic model of the HEFT paper).
  bool link_contention = true;
  // Per device, the memory a group may be bound under: binding a group is
  // refused where the op would take the device past it. Empty: each
  // device's capacity. An op of a group already bound goes to its device
  // whatever it adds (so the schedule can still overflow: see
  // etf_schedule's tightening).
  std::vector<int64_t> binding_limit_bytes = {};
};

class ListSchedule {
 public:
  ListSchedule(const Problem& problem, const Grouping& grouping, const ListScheduleOptions& options = {});

  // Whether `op` may run on `device`: the group allows it and is bound
  // there, or is not bound yet and the memory the op would add stays
  // within the device's binding limit.
  bool eligible(OpId op, DeviceId device) const;
  // The device `op`'s group is bound to, or kNoId.
  DeviceId bound_device(OpId op) const { return group_device_[grouping_->group_of(op)]; }
  // Time all of `op`'s inputs can be on `device` (every producer scheduled).
  double data_ready_s(OpId op, DeviceId device) const;
  // Earliest start on `device` at or after `ready_s` for `duration_s`:
  // after the device's last op, or, with insertion, in the first idle gap
  // long enough (HEFT's insertion policy) among the next kMaxGapScan busy
  // intervals after `ready_s`, else after the last op. The window keeps
  // HEFT linear on graphs of 100k ops, whose ops are ranked far from time
  // order; on small graphs it is exact insertion.
  static constexpr int kMaxGapScan = 64;
  double earliest_start_s(DeviceId device, double ready_s, double duration_s, bool insertion) const;
  // Bytes `op` would add on `device` now (outputs, copies of inputs, the
  // group's resident bytes if the group is not yet bound).
  int64_t added_bytes(OpId op, DeviceId device) const;

  // Where `op` goes when no device is eligible (memory full everywhere): its
  // group's device if bound, else the allowed device with the most memory
  // left after adding the op. The simulator will report the overflow.
  DeviceId roomiest_device(OpId op) const;

  // Schedules `op` on `device` from `start_s`; binds its group, updates memory.
  void assign(OpId op, DeviceId device, double start_s);

  bool scheduled(OpId op) const { return device_of_op_[op] != kNoId; }
  double finish_s(OpId op) const { return finish_s_[op]; }
  double device_free_s(DeviceId device) const { return device_free_s_[device]; }
  double makespan_s() const { return makespan_s_; }
  int64_t peak_memory_bytes(DeviceId device) const { return peak_bytes_[device]; }
  // Every op must be scheduled.
  Placement placement() const;

 private:
  // Arrival of each input of `op` on `device` not yet there: the transfers
  // it would issue, in input order, each waiting for its channels.
  struct Transfer {
    TensorId tensor;
    double start_s, end_s;
  };
  double plan_inputs(OpId op, DeviceId device, std::vector<Transfer>* transfers) const;

  const Problem* problem_;
  const Grouping* grouping_;
  ListScheduleOptions options_;
  std::vector<DeviceId> device_of_op_;
  std::vector<double> finish_s_;
  std::vector<DeviceId> group_device_;
  std::vector<double> device_free_s_;
  std::vector<std::map<double, double>> busy_;  // per device: start -> finish
  double makespan_s_ = 0;
  std::vector<double> channel_free_s_;
  std::vector<double> arrival_s_;  // num_tensors x num_devices, valid where a copy is
  mutable std::vector<std::pair<ChannelId, double>> planned_;  // scratch of plan_inputs
  // Memory: a tensor's copies (bit per device) and its consumers still unscheduled.
  std::vector<uint64_t> copies_;
  std::vector<int32_t> pending_consumers_;
  std::vector<int64_t> used_bytes_;
  std::vector<int64_t> peak_bytes_;
  std::vector<int64_t> limit_bytes_;  // binding limit per device
};

}  // namespace devplace
