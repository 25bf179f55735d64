// File: random.h
// RandomPlacer ("random"): each group on a device drawn uniformly from the
// devices it may use, from the seed. A floor for every other method.
#pragma once

#include "place/placer.h"

namespace devplace {

class RandomPlacer : public Placer {
 public:
  std::string_view name() const override { return "random"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
