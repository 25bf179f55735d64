// File: mincut.cc
// MincutPlacer ("mincut"): the paper's MinCut baseline (Mirhoseini et al.
// 2017, section 4): the Scotch mapping of "scotch" with the CPU removed from
// the target architecture, so that it balances the work over the GPUs and
// minimises the bytes they exchange. Groups with no GPU kernel stay on the
// CPU ("if an op has no GPU implementation it goes on the CPU"); Scotch does
// not see them or their edges. On a cluster without GPUs it is "scotch".
#include "place/mincut.h"

#include "place/device_choice.h"
#include "place/scotch.h"

namespace devplace {

Result<Placement> MincutPlacer::place(const PlaceContext& ctx) {
  return place_with_scotch(ctx, gpus_or_all_devices(ctx.problem.cluster()));
}

}  // namespace devplace
