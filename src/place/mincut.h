// File: mincut.h
// MincutPlacer: Scotch's mapping over the GPUs only (see mincut.cc).
#pragma once

#include "place/placer.h"

namespace devplace {

class MincutPlacer : public Placer {
 public:
  std::string_view name() const override { return "mincut"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
