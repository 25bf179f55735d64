// File: registry.cc
// The table of placers: one line each. A new placer is one file plus one line here.
#include <memory>

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
#include "place/rl_library.h"
#include "place/round_robin.h"
#include "place/scotch.h"
#include "place/single_gpu.h"

namespace devplace {

namespace {
template <typename T>
std::unique_ptr<Placer> make() {
  return std::make_unique<T>();
}
// The learned placers load libdevplace_rl.so (LibTorch) on first use.
std::unique_ptr<Placer> make_rl() { return make_rl_library_placer("rl"); }
std::unique_ptr<Placer> make_hierarchical() { return make_rl_library_placer("hierarchical"); }
}  // namespace

const std::vector<PlacerInfo>& placer_registry() {
  static const std::vector<PlacerInfo> registry = {
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
      {"rl", PlacerRole::kLearned,
       "the paper's method: a seq2seq policy over the groups trained by REINFORCE on step times",
       &make_rl},
      {"hierarchical", PlacerRole::kLearned,
       "the ICLR 2018 planner: a learned grouper of the co-location groups and the seq2seq placer, trained jointly",
       &make_hierarchical},
      {"exhaustive", PlacerRole::kReference, "every placement of a tiny graph (at most 1e6); the true optimum",
       &make<ExhaustivePlacer>},
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
