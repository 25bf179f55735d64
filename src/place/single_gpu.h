// File: single_gpu.h
// SingleGpuPlacer: the single-GPU baseline (see single_gpu.cc).
#pragma once

#include "place/placer.h"

namespace devplace {

class SingleGpuPlacer : public Placer {
 public:
  std::string_view name() const override { return "single-gpu"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
