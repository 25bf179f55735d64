// File: heft.h
// HeftPlacer: Heterogeneous Earliest Finish Time (Topcuoglu, Hariri and Wu,
// IEEE TPDS 2002), with the list schedule's memory constraint.
#pragma once

#include <vector>

#include "place/list_schedule.h"
#include "place/placer.h"

namespace devplace {

// HEFT's upward rank of every op: its mean time over the devices it may use
// plus the largest (mean transfer time + rank) over its consumers. The mean
// transfer time of an edge is its time averaged over ordered pairs of
// distinct devices.
std::vector<double> heft_upward_ranks(const Problem& problem, const Grouping& grouping);

// The HEFT schedule: ops by decreasing upward rank (ties: topological
// order), each on the eligible device where it finishes first, inserted into
// the earliest idle gap that holds it.
ListSchedule heft_schedule(const Problem& problem, const Grouping& grouping, const ListScheduleOptions& options = {});

class HeftPlacer : public Placer {
 public:
  std::string_view name() const override { return "heft"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
