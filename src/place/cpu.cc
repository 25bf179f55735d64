// File: cpu.cc
// CpuPlacer ("cpu"): every op on the first CPU, the paper's CPU-only
// baseline. Groups that cannot run there (GPU-only kernels, pins) go to the
// first device they may use.
#include "place/cpu.h"

#include "place/device_choice.h"

namespace devplace {

Result<Placement> CpuPlacer::place(const Problem& problem, Evaluator&, const Budget&, Rng&) {
  std::optional<DeviceId> cpu = problem.cluster().first_device_of_kind(DeviceKind::kCpu);
  const DeviceId preferred = cpu ? *cpu : 0;
  std::vector<DeviceId> groups(problem.graph().num_groups());
  for (GroupId g = 0; g < problem.graph().num_groups(); ++g) groups[g] = choose_allowed_device(problem, g, preferred);
  return placement_from_groups(problem.graph(), groups);
}

}  // namespace devplace
