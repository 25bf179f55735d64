// File: exhaustive.h
// ExhaustivePlacer ("exhaustive"): evaluates every assignment of groups to
// the devices each may use and returns the best (fitting memory first, then
// the shortest step; ties: the first in enumeration order). It refuses
// problems with more than kMaxPlacements assignments: it exists to check the
// other placers against the true optimum on tiny graphs.
#pragma once

#include <cstdint>

#include "place/placer.h"

namespace devplace {

class ExhaustivePlacer : public Placer {
 public:
  static constexpr int64_t kMaxPlacements = 1'000'000;
  std::string_view name() const override { return "exhaustive"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
