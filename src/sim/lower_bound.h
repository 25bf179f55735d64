// File: lower_bound.h
// A lower bound on the step time of any placement of a problem, under the
// simulator's model (each device runs one op at a time; transfers cost
// time >= 0). Every placer's result is reported as a ratio to it.
#pragma once

#include "sim/problem.h"

namespace devplace {

struct LowerBound {
  // The longest dependency chain with every op on its fastest allowed device
  // and transfers free.
  double critical_path_s = 0;
  // All the work spread perfectly over the devices: the optimum of the
  // fractional assignment of co-location groups to devices minimising the
  // most loaded device (the linear-programming relaxation of scheduling on
  // unrelated machines), approached from below through its Lagrangian dual,
  // so the figure is a valid bound at any point of the search. On identical
  // devices it is total work / number of devices; on devices differing only
  // in speed it is total work / total speed.
  double load_s = 0;
  // The heaviest co-location group on its best device: its ops share one device.
  double group_s = 0;

  double value_s() const;
};

LowerBound compute_lower_bound(const Problem& problem);

}  // namespace devplace
