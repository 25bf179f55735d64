// File: cpu.cc
// CpuPlacer ("cpu"): every op on the first CPU, the paper's CPU-only
// baseline. Groups that cannot run there (GPU-only kernels, pins) go to the
// first device they may use.
#include "place/cpu.h"

#include "place/device_choice.h"

namespace devplace {

Result<Placement> CpuPlacer::place(const PlaceContext& ctx) {
  std::optional<DeviceId> cpu = ctx.problem.cluster().first_device_of_kind(DeviceKind::kCpu);
  const DeviceId preferred = cpu ? *cpu : 0;
  std::vector<DeviceId> groups(ctx.grouping.num_groups());
  for (int32_t g = 0; g < ctx.grouping.num_groups(); ++g) groups[g] = choose_allowed_device(ctx.problem, ctx.grouping, g, preferred);
  return ctx.grouping.to_placement(groups);
}

}  // namespace devplace
