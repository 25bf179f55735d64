// File: scotch.h
// ScotchPlacer: Scotch static mapping of the group graph onto the cluster
// (see scotch.cc), and the mapping function it shares with MincutPlacer.
#pragma once

#include <vector>

#include "place/placer.h"

namespace devplace {

// Maps the groups that some device of `devices` may run onto those devices
// with Scotch's static mapper (SCOTCH_graphMapFixed over an architecture
// built from the devices, see scotch.cc), then finishes the placement with
// finish_partition. Groups that no listed device may run go to the first
// device they may use: CPU-only ops to the CPU when `devices` are the GPUs.
// Draws one seed from context.rng, so the same seed gives the same placement.
// Fails with an internal error naming the Scotch call that failed.
Result<Placement> place_with_scotch(const PlaceContext& context, const std::vector<DeviceId>& devices);

// "scotch": the paper's Scotch baseline (Mirhoseini et al. 2017, section 4):
// every device, the CPU included, is a processor of the target architecture.
class ScotchPlacer : public Placer {
 public:
  std::string_view name() const override { return "scotch"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
