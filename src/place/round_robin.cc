// File: round_robin.cc
// RoundRobinPlacer ("round-robin"): co-location groups, in topological order
// of their first op, dealt in turn to the GPUs (to every device on a cluster
// without GPUs). A group that may not use its turn's device takes the next
// device in the cycle it may use. A naive baseline: it balances op counts,
// not time, and pays a transfer on almost every edge.
#include "place/round_robin.h"

#include "place/device_choice.h"

namespace devplace {

Result<Placement> RoundRobinPlacer::place(const Problem& problem, Evaluator&, const Budget&, Rng&) {
  const Cluster& c = problem.cluster();
  std::vector<DeviceId> cycle;
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    if (c.device(d).kind == DeviceKind::kGpu) cycle.push_back(d);
  }
  if (cycle.empty()) {
    for (DeviceId d = 0; d < c.num_devices(); ++d) cycle.push_back(d);
  }
  std::vector<DeviceId> groups(problem.graph().num_groups(), kNoId);
  size_t turn = 0;
  for (GroupId g : groups_in_topological_order(problem.graph())) {
    DeviceId chosen = kNoId;
    for (size_t k = 0; k < cycle.size() && chosen == kNoId; ++k) {
      const DeviceId d = cycle[(turn + k) % cycle.size()];
      if (problem.allows(g, d)) chosen = d;
    }
    groups[g] = chosen != kNoId ? chosen : choose_allowed_device(problem, g, cycle[turn % cycle.size()]);
    ++turn;
  }
  return placement_from_groups(problem.graph(), groups);
}

}  // namespace devplace
