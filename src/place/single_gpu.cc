// File: single_gpu.cc
// SingleGpuPlacer ("single-gpu"): every op on the first GPU, as the paper's
// single-GPU baseline; ops without a GPU kernel (and their co-location
// groups) fall back to the CPU. On a cluster with no GPU it is "cpu".
#include "place/single_gpu.h"

#include "place/device_choice.h"

namespace devplace {

Result<Placement> SingleGpuPlacer::place(const Problem& problem, Evaluator&, const Budget&, Rng&) {
  const Cluster& c = problem.cluster();
  std::optional<DeviceId> gpu = c.first_device_of_kind(DeviceKind::kGpu);
  std::optional<DeviceId> cpu = c.first_device_of_kind(DeviceKind::kCpu);
  const DeviceId preferred = gpu ? *gpu : (cpu ? *cpu : 0);
  std::vector<DeviceId> groups(problem.graph().num_groups());
  for (GroupId g = 0; g < problem.graph().num_groups(); ++g) {
    DeviceId d = preferred;
    if (!problem.allows(g, d) && cpu && problem.allows(g, *cpu)) d = *cpu;
    groups[g] = choose_allowed_device(problem, g, d);
  }
  return placement_from_groups(problem.graph(), groups);
}

}  // namespace devplace
