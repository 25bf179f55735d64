// File: grouping.h
// Grouping: the units placers assign to devices. Every placer works on one;
// the finest is the graph's own co-location groups (ops that must share a
// device: an op with its backward and update ops, explicit colocation names).
// The paper's heuristic (Mirhoseini et al. 2017, section 3) coarsens that: a
// forward op whose outputs go to exactly one other forward op joins that op's
// group, recursively along chains, so that a placer never splits a chain it
// would only pay transfers for. A cap on each group's work keeps groups small
// enough to balance.
//
// Groups are numbered in the topological order of their first op, so a
// placer that walks groups in id order walks the graph forward.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace {

enum class GroupingKind {
  kColocation,  // the graph's co-location groups, nothing merged
  kPaper,       // co-location groups plus the single-consumer merge (the default)
};

// "colocation" or "paper"; anything else is an error naming both.
Result<GroupingKind> parse_grouping_kind(std::string_view name);
std::string_view grouping_kind_name(GroupingKind kind);

struct GroupingOptions {
  GroupingKind kind = GroupingKind::kPaper;
  // A merge may not make a group's work (its ops' time on their fastest
  // device) exceed this share of the whole graph's work. 0 means
  // 1 / (8 x number of devices), so every device can get about eight groups.
  // The graph's own co-location groups are never split, even above the cap.
  double max_group_share = 0;
};

class Grouping {
 public:
  static Grouping create(const Problem& problem, const GroupingOptions& options = {});

  int num_groups() const { return static_cast<int>(ops_.size()); }
  int num_ops() const { return static_cast<int>(group_of_.size()); }
  int32_t group_of(OpId op) const { return group_of_[op]; }
  // Ops of a group in topological order.
  const std::vector<OpId>& ops(int32_t group) const { return ops_[group]; }
  // Devices that may run every op of the group (kernels and pins).
  DeviceMask allowed_devices(int32_t group) const { return allowed_[group]; }
  bool allows(int32_t group, DeviceId device) const { return (allowed_[group] >> device) & 1u; }
  // Seconds of all the group's ops on one device (+infinity without a kernel).
  double work_s(int32_t group, DeviceId device) const { return work_s_[static_cast<size_t>(group) * num_devices_ + device]; }
  // Bytes the group keeps resident on its device all step (parameters and optimizer state).
  int64_t resident_bytes(int32_t group) const { return resident_bytes_[group]; }
  // Bytes the group's ops write (every output tensor once).
  int64_t output_bytes(int32_t group) const { return output_bytes_[group]; }

  // The placement that puts every op on its group's device.
  Placement to_placement(const std::vector<DeviceId>& device_of_group) const;
  // The device of each group's first op (for a placement that honours the grouping).
  std::vector<DeviceId> device_of_groups(const Placement& placement) const;

 private:
  int num_devices_ = 0;
  std::vector<int32_t> group_of_;
  std::vector<std::vector<OpId>> ops_;
  std::vector<DeviceMask> allowed_;
  std::vector<double> work_s_;  // num_groups x num_devices
  std::vector<int64_t> resident_bytes_;
  std::vector<int64_t> output_bytes_;
};

}  // namespace devplace
