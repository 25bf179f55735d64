// File: random.h
// RandomPlacer ("random"): each group on a device drawn uniformly from the
// devices it may use, from the seed. A floor for every other method.
// draw_random_devices is the draw itself, shared with random-search.
#pragma once

#include <vector>

#include "place/placer.h"

namespace devplace {

class RandomPlacer : public Placer {
 public:
  std::string_view name() const override { return "random"; }
  Result<Placement> place(const PlaceContext& context) override;
};

// A device per group of `grouping`, each drawn uniformly from the devices
// the group may use (one rng.below() per group, in group order).
std::vector<DeviceId> draw_random_devices(const Grouping& grouping, Rng& rng);

}  // namespace devplace
