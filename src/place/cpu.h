// File: cpu.h
// CpuPlacer: the CPU-only baseline (see cpu.cc).
#pragma once

#include "place/placer.h"

namespace devplace {

class CpuPlacer : public Placer {
 public:
  std::string_view name() const override { return "cpu"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
