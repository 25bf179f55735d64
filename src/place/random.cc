// File: random.cc
// Uniform random placement of groups (see random.h).
#include "place/random.h"

#include <bit>

namespace devplace {

std::vector<DeviceId> draw_random_devices(const Grouping& grouping, Rng& rng) {
  std::vector<DeviceId> device_of_group(grouping.num_groups());
  for (int32_t g = 0; g < grouping.num_groups(); ++g) {
    DeviceMask mask = grouping.allowed_devices(g);
    for (uint64_t k = rng.below(static_cast<uint64_t>(std::popcount(mask))); k > 0; --k) mask &= mask - 1;
    device_of_group[g] = static_cast<DeviceId>(std::countr_zero(mask));
  }
  return device_of_group;
}

Result<Placement> RandomPlacer::place(const PlaceContext& ctx) {
  return ctx.grouping.to_placement(draw_random_devices(ctx.grouping, ctx.rng));
}

}  // namespace devplace
