// File: m_etf.h
// MEtfPlacer ("m-etf"): memory-constrained Earliest Task First (Baechi,
// Jeon et al., SoCC 2020; ETF: Hwang, Chow, Anger and Lee, SIAM J. Comput.
// 1989). Repeatedly schedules, among the ops whose inputs are all
// scheduled, the one that can start earliest, on the eligible device where
// it starts earliest (ties: earlier finish, then lower device id), without
// inserting into idle gaps. Like Baechi it places on the GPUs; only ops no
// GPU can run go elsewhere. (ETF assumes identical machines: with a slow
// CPU in the set, "starts earliest" sends work to the idle CPU.)
#pragma once

#include <vector>

#include "place/list_schedule.h"
#include "place/placer.h"

namespace devplace {

// The ETF schedule. `favourite_parent` (empty, or one entry per op, kNoId
// for none) is m-SCT's rule: an op whose favourite parent's device is
// eligible for it goes there and nowhere else. When a device ends past its
// capacity (a group's later ops follow it there), the schedule is made
// again with a lower binding limit on that device, up to
// kEtfTighteningRounds times; the first that fits, else the one that
// overflows least, is returned.
inline constexpr int kEtfTighteningRounds = 12;
ListSchedule etf_schedule(const Problem& problem, const Grouping& grouping, const std::vector<OpId>& favourite_parent = {});

class MEtfPlacer : public Placer {
 public:
  std::string_view name() const override { return "m-etf"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
