// File: m_topo.h
// MTopoPlacer ("m-topo"): memory-constrained topological placement (Baechi,
// SoCC 2020). Groups, in topological order, fill one GPU after another:
// each GPU takes groups until the next would push its memory past its
// share, min(capacity, 1.05 x total / number of GPUs), where a group's
// memory is its resident bytes plus everything its ops write. The last GPU
// takes the rest; if that overflows its capacity, a group goes to the GPU
// with the most capacity left. Groups that cannot run on a GPU go to the
// CPU. It balances memory, not time, and keeps the graph's order, so
// consecutive layers share a device.
#pragma once

#include <cstdint>
#include <vector>

#include "place/placer.h"

namespace devplace {

class MTopoPlacer : public Placer {
 public:
  std::string_view name() const override { return "m-topo"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
