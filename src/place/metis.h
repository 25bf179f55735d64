// File: metis.h
// MetisPlacer: METIS k-way partitioning of the group graph (see metis.cc).
#pragma once

#include "place/placer.h"

namespace devplace {

class MetisPlacer : public Placer {
 public:
  std::string_view name() const override { return "metis"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
