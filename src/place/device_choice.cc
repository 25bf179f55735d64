// File: device_choice.cc
// Shared device rules of the simple placers.
#include "place/device_choice.h"

#include "common/check.h"

namespace devplace {

DeviceId choose_allowed_device(const Problem& problem, GroupId group, DeviceId preferred) {
  if (problem.allows(group, preferred)) return preferred;
  const Cluster& c = problem.cluster();
  DeviceId first = kNoId;
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    if (!problem.allows(group, d)) continue;
    if (c.device(d).kind == c.device(preferred).kind) return d;
    if (first == kNoId) first = d;
  }
  DEVPLACE_CHECK(first != kNoId);  // Problem::create rejects groups with no device
  return first;
}

std::vector<GroupId> groups_in_topological_order(const Graph& graph) {
  std::vector<GroupId> order;
  std::vector<char> seen(graph.num_groups(), 0);
  for (OpId id : graph.topo_order()) {
    const GroupId g = graph.group_of(id);
    if (!seen[g]) {
      seen[g] = 1;
      order.push_back(g);
    }
  }
  return order;
}

}  // namespace devplace
