// File: grouping.cc
// Co-location groups and the paper's single-consumer merge (see grouping.h).
#include "group/grouping.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "common/check.h"

namespace devplace {

Result<GroupingKind> parse_grouping_kind(std::string_view name) {
  if (name == "colocation") return GroupingKind::kColocation;
  if (name == "paper") return GroupingKind::kPaper;
  return invalid_input("unknown grouping '" + std::string(name) + "' (known: paper, colocation)");
}

std::string_view grouping_kind_name(GroupingKind kind) {
  return kind == GroupingKind::kColocation ? "colocation" : "paper";
}

namespace {

// Union-find over the graph's co-location groups, with each set's work and device mask.
class GroupSets {
 public:
  GroupSets(std::vector<double> work, std::vector<DeviceMask> allowed)
      : parent_(work.size()), work_(std::move(work)), allowed_(std::move(allowed)) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int32_t find(int32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  // Merges the sets of a and b if they may use the same devices (a merge
  // never narrows a group's choice: a CPU-only input does not drag its
  // consumer chain to the CPU) and the merged work stays within cap.
  void merge_within(int32_t a, int32_t b, double cap) {
    a = find(a);
    b = find(b);
    if (a == b || allowed_[a] != allowed_[b] || work_[a] + work_[b] > cap) return;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
    work_[a] += work_[b];
  }

 private:
  std::vector<int32_t> parent_;
  std::vector<double> work_;
  std::vector<DeviceMask> allowed_;
};

// An op's time on its fastest device.
double fastest_time_s(const Problem& problem, OpId op) {
  double best = std::numeric_limits<double>::infinity();
  for (DeviceId d = 0; d < problem.num_devices(); ++d) best = std::min(best, problem.op_time_s(op, d));
  return best;
}

}  // namespace

Grouping Grouping::create(const Problem& problem, const GroupingOptions& options) {
  const Graph& g = problem.graph();
  const int n = g.num_ops();
  const int nd = problem.num_devices();

  std::vector<double> op_work(n);
  double total_work = 0;
  std::vector<double> set_work(g.num_groups(), 0.0);
  std::vector<DeviceMask> set_allowed(g.num_groups());
  for (OpId id = 0; id < n; ++id) {
    op_work[id] = fastest_time_s(problem, id);
    total_work += op_work[id];
    set_work[g.group_of(id)] += op_work[id];
  }
  for (GroupId grp = 0; grp < g.num_groups(); ++grp) set_allowed[grp] = problem.allowed_devices(grp);
  GroupSets sets(std::move(set_work), std::move(set_allowed));

  if (options.kind == GroupingKind::kPaper) {
    const double share = options.max_group_share > 0 ? options.max_group_share : 1.0 / (8.0 * std::max(nd, 1));
    const double cap = share * total_work;
    for (OpId id : g.topo_order()) {
      const Op& op = g.op(id);
      if (op.phase != OpPhase::kForward) continue;
      OpId only = kNoId;
      bool single = true;
      for (TensorId t : op.outputs) {
        for (OpId c : g.tensor(t).consumers) {
          if (g.op(c).phase != OpPhase::kForward || c == only) continue;
          if (only == kNoId) {
            only = c;
          } else {
            single = false;
          }
        }
      }
      if (!single || only == kNoId) continue;
      // Merges stay inside a model layer where the graph marks layers, so
      // that layer-wise placements (expert) and layer-wise groups agree.
      const int32_t layer = op.layer, consumer_layer = g.op(only).layer;
      if (layer >= 0 && consumer_layer >= 0 && layer != consumer_layer) continue;
      sets.merge_within(g.group_of(id), g.group_of(only), cap);
    }
  }

  Grouping out;
  out.num_devices_ = nd;
  out.group_of_.assign(n, -1);
  std::vector<int32_t> label(g.num_groups(), -1);
  for (OpId id : g.topo_order()) {
    const int32_t root = sets.find(g.group_of(id));
    if (label[root] < 0) {
      label[root] = static_cast<int32_t>(out.ops_.size());
      out.ops_.emplace_back();
    }
    out.group_of_[id] = label[root];
    out.ops_[label[root]].push_back(id);
  }
  const int ng = out.num_groups();
  const DeviceMask all = nd == 64 ? ~DeviceMask{0} : (DeviceMask{1} << nd) - 1;
  out.allowed_.assign(ng, all);
  out.work_s_.assign(static_cast<size_t>(ng) * nd, 0.0);
  out.resident_bytes_.assign(ng, 0);
  out.output_bytes_.assign(ng, 0);
  for (OpId id = 0; id < n; ++id) {
    const int32_t grp = out.group_of_[id];
    const Op& op = g.op(id);
    out.allowed_[grp] &= problem.allowed_devices(g.group_of(id));
    for (DeviceId d = 0; d < nd; ++d) out.work_s_[static_cast<size_t>(grp) * nd + d] += problem.op_time_s(id, d);
    out.resident_bytes_[grp] += op.parameter_bytes + op.optimizer_state_bytes;
    for (TensorId t : op.outputs) out.output_bytes_[grp] += g.tensor(t).bytes;
  }
  for (int32_t grp = 0; grp < ng; ++grp) DEVPLACE_CHECK(out.allowed_[grp] != 0);
  return out;
}

Placement Grouping::to_placement(const std::vector<DeviceId>& device_of_group) const {
  DEVPLACE_CHECK(static_cast<int>(device_of_group.size()) == num_groups());
  Placement p;
  p.device_of_op.resize(group_of_.size());
  for (size_t op = 0; op < group_of_.size(); ++op) p.device_of_op[op] = device_of_group[group_of_[op]];
  return p;
}

std::vector<DeviceId> Grouping::device_of_groups(const Placement& placement) const {
  std::vector<DeviceId> out(num_groups());
  for (int32_t grp = 0; grp < num_groups(); ++grp) out[grp] = placement.device_of_op[ops_[grp].front()];
  return out;
}

}  // namespace devplace
