// File: registry.cc
// The table of placers: one line each. A new placer is one file plus one line
// here (or, outside place/, one register_placer call).
#include <memory>
#include <string>
#include <utility>

#include "place/cpu.h"
#include "place/exhaustive.h"
#include "place/expert.h"
#include "place/heft.h"
#include "place/local_search.h"
#include "place/m_etf.h"
#include "place/m_sct.h"
#include "place/m_topo.h"
#include "place/metis.h"
#include "place/mincut.h"
#include "place/placer.h"
#include "place/random.h"
#include "place/random_search.h"
#include "place/round_robin.h"
#include "place/scotch.h"
#include "place/single_gpu.h"

namespace devplace {

namespace {
template <typename T>
std::unique_ptr<Placer> make() {
  return std::make_unique<T>();
}

std::vector<PlacerInfo>& registry() {
  static std::vector<PlacerInfo> registry = {
      {"cpu", PlacerRole::kPaperBaseline, "every op on the CPU (the paper's CPU-only baseline)", &make<CpuPlacer>},
      {"single-gpu", PlacerRole::kPaperBaseline,
       "every op on the first GPU, CPU-only ops on the CPU (the paper's single-GPU baseline)", &make<SingleGpuPlacer>},
      {"scotch", PlacerRole::kPaperBaseline,
       "Scotch static mapping of the groups onto every device, weighted by speed and link cost", &make<ScotchPlacer>},
      {"mincut", PlacerRole::kPaperBaseline, "Scotch static mapping onto the GPUs only; ops without a GPU kernel on the CPU",
       &make<MincutPlacer>},
      {"expert", PlacerRole::kPaperBaseline,
       "the papers' hand-made placement: contiguous layer blocks on successive GPUs", &make<ExpertPlacer>},
      {"round-robin", PlacerRole::kSimple, "groups dealt in topological order over the GPUs", &make<RoundRobinPlacer>},
      {"random", PlacerRole::kSimple, "each group on a device drawn uniformly from those it may use", &make<RandomPlacer>},
      {"metis", PlacerRole::kAlgorithm, "METIS k-way partition of the groups, one part per device, sized by device speed",
       &make<MetisPlacer>},
      {"heft", PlacerRole::kAlgorithm, "HEFT: upward rank, insertion-based earliest finish time (Topcuoglu 2002)",
       &make<HeftPlacer>},
      {"m-topo", PlacerRole::kAlgorithm, "Baechi's m-TOPO: groups in topological order fill GPU after GPU by memory",
       &make<MTopoPlacer>},
      {"m-etf", PlacerRole::kAlgorithm, "Baechi's m-ETF: earliest task first under the memory limits", &make<MEtfPlacer>},
      {"m-sct", PlacerRole::kAlgorithm, "Baechi's m-SCT: m-ETF keeping each favourite child with its parent",
       &make<MSctPlacer>},
      {"local-search", PlacerRole::kSearch,
       "simulated annealing and hill climbing over group moves, from the best of the above", &make<LocalSearchPlacer>},
      {"random-search", PlacerRole::kSearch, "the best of uniformly random placements (as random's), one per evaluation",
       &make<RandomSearchPlacer>},
      {"exhaustive", PlacerRole::kReference, "every placement of a tiny graph (at most 1e6); the true optimum",
       &make<ExhaustivePlacer>},
  };
  return registry;
}

}  // namespace

const std::vector<PlacerInfo>& placer_registry() { return registry(); }

Status register_placer(PlacerInfo info) {
  for (const PlacerInfo& known : registry()) {
    if (known.name == info.name) return internal_error("a placer named '" + std::string(info.name) + "' is registered twice");
  }
  registry().push_back(std::move(info));
  return Status::ok_status();
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
