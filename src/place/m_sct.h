// File: m_sct.h
// MSctPlacer ("m-sct"): memory-constrained Small Communication Time
// placement (Baechi, SoCC 2020, after Hanen and Munier's SCT scheduling).
// Each op may have one favourite child and each op one favourite parent;
// a favourite child goes to its favourite parent's device whenever that
// device is eligible for it, so the edge between them never crosses a link.
// Otherwise the schedule is m-ETF's.
//
// Favourites come from a simple exact rule instead of Baechi's linear
// program: edges are taken by decreasing mean transfer time (ties:
// topological order of the parent, then of the child) and an edge becomes
// a favourite pair when neither its parent has a favourite child nor its
// child a favourite parent yet. That is the greedy maximum-weight matching
// of parents to children, which keeps the costliest transfers local; no LP
// solver is needed.
#pragma once

#include <vector>

#include "place/placer.h"
#include "sim/problem.h"

namespace devplace {

// One entry per op: its favourite parent, or kNoId.
std::vector<OpId> sct_favourite_parents(const Problem& problem);

class MSctPlacer : public Placer {
 public:
  std::string_view name() const override { return "m-sct"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
