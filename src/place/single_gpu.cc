// File: single_gpu.cc
// SingleGpuPlacer ("single-gpu"): every op on the first GPU, as the paper's
// single-GPU baseline; ops without a GPU kernel (and their groups) fall back
// to the CPU. On a cluster with no GPU it is "cpu".
#include "place/single_gpu.h"

#include "place/device_choice.h"

namespace devplace {

Result<Placement> SingleGpuPlacer::place(const PlaceContext& ctx) {
  const Cluster& c = ctx.problem.cluster();
  std::optional<DeviceId> gpu = c.first_device_of_kind(DeviceKind::kGpu);
  std::optional<DeviceId> cpu = c.first_device_of_kind(DeviceKind::kCpu);
  const DeviceId preferred = gpu ? *gpu : (cpu ? *cpu : 0);
  std::vector<DeviceId> groups(ctx.grouping.num_groups());
  for (int32_t g = 0; g < ctx.grouping.num_groups(); ++g) {
    DeviceId d = preferred;
    if (!ctx.grouping.allows(g, d) && cpu && ctx.grouping.allows(g, *cpu)) d = *cpu;
    groups[g] = choose_allowed_device(ctx.problem, ctx.grouping, g, d);
  }
  return ctx.grouping.to_placement(groups);
}

}  // namespace devplace
