// File: round_robin.h
// RoundRobinPlacer: co-location groups dealt over the GPUs (see round_robin.cc).
#pragma once

#include "place/placer.h"

namespace devplace {

class RoundRobinPlacer : public Placer {
 public:
  std::string_view name() const override { return "round-robin"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
