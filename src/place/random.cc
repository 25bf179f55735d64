// File: random.cc
// Uniform random placement of groups (see random.h).
#include "place/random.h"

#include <bit>

namespace devplace {

Result<Placement> RandomPlacer::place(const PlaceContext& ctx) {
  const Grouping& grouping = ctx.grouping;
  std::vector<DeviceId> device_of_group(grouping.num_groups());
  for (int32_t g = 0; g < grouping.num_groups(); ++g) {
    DeviceMask mask = grouping.allowed_devices(g);
    for (uint64_t k = ctx.rng.below(static_cast<uint64_t>(std::popcount(mask))); k > 0; --k) mask &= mask - 1;
    device_of_group[g] = static_cast<DeviceId>(std::countr_zero(mask));
  }
  return grouping.to_placement(device_of_group);
}

}  // namespace devplace
