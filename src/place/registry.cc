// File: registry.cc
// The table of placers: one line each. A new placer is one file plus one line here.
#include <memory>

#include "place/cpu.h"
#include "place/expert.h"
#include "place/placer.h"
#include "place/round_robin.h"
#include "place/single_gpu.h"

namespace devplace {

namespace {
template <typename T>
std::unique_ptr<Placer> make() {
  return std::make_unique<T>();
}
}  // namespace

const std::vector<PlacerInfo>& placer_registry() {
  static const std::vector<PlacerInfo> registry = {
      {"cpu", PlacerRole::kPaperBaseline, "every op on the CPU (the paper's CPU-only baseline)", &make<CpuPlacer>},
      {"single-gpu", PlacerRole::kPaperBaseline,
       "every op on the first GPU, CPU-only ops on the CPU (the paper's single-GPU baseline)", &make<SingleGpuPlacer>},
      {"expert", PlacerRole::kPaperBaseline,
       "the papers' hand-made placement: contiguous layer blocks on successive GPUs", &make<ExpertPlacer>},
      {"round-robin", PlacerRole::kSimple, "groups dealt in topological order over the GPUs", &make<RoundRobinPlacer>},
  };
  return registry;
}

Result<std::unique_ptr<Placer>> make_placer(std::string_view name) {
  std::string known;
  for (const PlacerInfo& info : placer_registry()) {
    if (info.name == name) return info.make();
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  }
  return not_found("unknown placer '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace devplace
