// File: round_robin.cc
// RoundRobinPlacer ("round-robin"): groups, in topological order of their
// first op (their id order), dealt in turn to the GPUs (to every device on a
// cluster without GPUs). A group that may not use its turn's device takes
// the next device in the cycle it may use. A naive baseline: it balances
// group counts, not time, and pays a transfer on almost every edge.
#include "place/round_robin.h"

#include "place/device_choice.h"

namespace devplace {

Result<Placement> RoundRobinPlacer::place(const PlaceContext& ctx) {
  const std::vector<DeviceId> cycle = gpus_or_all_devices(ctx.problem.cluster());
  std::vector<DeviceId> groups(ctx.grouping.num_groups(), kNoId);
  for (int32_t g = 0; g < ctx.grouping.num_groups(); ++g) {
    const size_t turn = static_cast<size_t>(g);
    DeviceId chosen = kNoId;
    for (size_t k = 0; k < cycle.size() && chosen == kNoId; ++k) {
      const DeviceId d = cycle[(turn + k) % cycle.size()];
      if (ctx.grouping.allows(g, d)) chosen = d;
    }
    groups[g] = chosen != kNoId ? chosen : choose_allowed_device(ctx.problem, ctx.grouping, g, cycle[turn % cycle.size()]);
  }
  return ctx.grouping.to_placement(groups);
}

}  // namespace devplace
