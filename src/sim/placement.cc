// File: placement.cc
// Building and checking placements.
#include "sim/placement.h"

#include "common/check.h"
#include "sim/problem.h"

namespace devplace {

Placement placement_from_groups(const Graph& graph, const std::vector<DeviceId>& device_of_group) {
  DEVPLACE_CHECK(static_cast<int>(device_of_group.size()) == graph.num_groups());
  Placement p;
  p.device_of_op.resize(graph.num_ops());
  for (OpId id = 0; id < graph.num_ops(); ++id) p.device_of_op[id] = device_of_group[graph.group_of(id)];
  return p;
}

Status check_placement(const Problem& problem, const Placement& placement) {
  const Graph& graph = problem.graph();
  const Cluster& cluster = problem.cluster();
  if (static_cast<int>(placement.device_of_op.size()) != graph.num_ops())
    return invalid_input("placement has " + std::to_string(placement.device_of_op.size()) + " ops, the graph has " +
                         std::to_string(graph.num_ops()));
  std::vector<DeviceId> group_device(graph.num_groups(), kNoId);
  for (OpId id = 0; id < graph.num_ops(); ++id) {
    const Op& op = graph.op(id);
    const DeviceId d = placement.device_of_op[id];
    if (d < 0 || d >= cluster.num_devices())
      return invalid_input("op '" + op.name + "': device #" + std::to_string(d) + " is not in cluster '" + cluster.name() + "'");
    const Device& dev = cluster.device(d);
    if (!op.has_kernel(dev.kind))
      return invalid_input("op '" + op.name + "': placed on '" + dev.name + "', but it has no " +
                           std::string(device_kind_name(dev.kind)) + " kernel");
    if (problem.pinned_device(id) != kNoId && problem.pinned_device(id) != d)
      return invalid_input("op '" + op.name + "': placed on '" + dev.name + "', but it is pinned to '" + op.pinned_device + "'");
    const GroupId g = graph.group_of(id);
    if (group_device[g] == kNoId) {
      group_device[g] = d;
    } else if (group_device[g] != d) {
      return invalid_input("op '" + op.name + "': placed on '" + dev.name + "', but its co-location group '" +
                           graph.group_name(g) + "' is on '" + cluster.device(group_device[g]).name + "'");
    }
  }
  return Status::ok_status();
}

}  // namespace devplace
