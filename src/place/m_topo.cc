// File: m_topo.cc
// Topological memory fill over the GPUs (see m_topo.h).
#include "place/m_topo.h"

#include <algorithm>

#include "place/device_choice.h"

namespace devplace {

Result<Placement> MTopoPlacer::place(const PlaceContext& ctx) {
  const Cluster& c = ctx.problem.cluster();
  const Grouping& grouping = ctx.grouping;
  const std::vector<DeviceId> fill = gpus_or_all_devices(c);
  auto memory = [&](int32_t g) { return grouping.resident_bytes(g) + grouping.output_bytes(g); };

  int64_t total = 0;
  for (int32_t g = 0; g < grouping.num_groups(); ++g) total += memory(g);
  const double share = 1.05 * static_cast<double>(total) / static_cast<double>(fill.size());

  std::vector<int64_t> used(c.num_devices(), 0);
  std::vector<DeviceId> device_of_group(grouping.num_groups(), kNoId);
  size_t current = 0;
  for (int32_t g = 0; g < grouping.num_groups(); ++g) {
    const int64_t bytes = memory(g);
    auto limit = [&](DeviceId d) { return std::min(share, static_cast<double>(c.device(d).memory_bytes)); };
    // Move on while the current device is non-empty and this group would overfill its share.
    while (current + 1 < fill.size() && used[fill[current]] > 0 &&
           static_cast<double>(used[fill[current]] + bytes) > limit(fill[current])) {
      ++current;
    }
    DeviceId d = kNoId;
    for (size_t k = current; k < fill.size() && d == kNoId; ++k) {
      if (grouping.allows(g, fill[k])) d = fill[k];
    }
    if (d != kNoId && used[d] + bytes > c.device(d).memory_bytes) {
      // Past every share: the fill device with the most capacity left, if any has room.
      for (DeviceId other : fill) {
        if (grouping.allows(g, other) && c.device(other).memory_bytes - used[other] > c.device(d).memory_bytes - used[d]) d = other;
      }
    }
    if (d == kNoId) d = choose_allowed_device(ctx.problem, grouping, g, fill[current]);
    device_of_group[g] = d;
    used[d] += bytes;
  }
  return grouping.to_placement(device_of_group);
}

}  // namespace devplace
