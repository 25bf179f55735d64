// File: rl_bench.cc
// One REINFORCE update of the rl placer (K = 8 samples: the policy's
// forward pass, 8 simulations, the backward pass and an Adam step) on the
// paper's models on k80x4: Inception-V3 (60 paper groups), RNNLM (358) and
// NMT (647). Each iteration trains for 1 and for 6 updates and reports a
// fifth of the difference, so that building the policy and the final greedy
// decode are not counted. The rl placer is run through the placer
// interface, so this file needs no torch headers.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cluster/cluster_json.h"
#include "cost/cost_model.h"
#include "place/run_placer.h"
#include "rl/rl_library.h"
#include "sim/simulator.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

// rl and hierarchical run by name, as the CLI runs them.
[[maybe_unused]] const bool kLearnedRegistered = (register_learned_placers(), true);

void BM_RlUpdate(benchmark::State& state, const char* model) {
  Graph g = build_zoo_model(model).value();
  Cluster c = load_cluster("k80x4").value();
  auto cost = make_default_cost_model();
  const Problem p = Problem::create(g, c, *cost).value();
  Simulator sim(p);
  auto seconds = [&](int64_t updates) {
    PlacerRunOptions options;
    // The update alone: no warm start (its search and imitation would be
    // most of both runs) and no polish.
    options.method_options = {{"iterations", std::to_string(updates)}, {"warm-start", "none"}, {"polish", "0"}};
    const auto start = std::chrono::steady_clock::now();
    Result<PlacerRun> run = run_placer("rl", p, sim, options);
    if (!run.ok()) {
      std::fprintf(stderr, "bench: %s\n", run.error().message().c_str());
      std::exit(1);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  int groups = 0;
  for (auto _ : state) {
    const double one = seconds(1);
    const double six = seconds(6);
    state.SetIterationTime(std::max(0.0, (six - one) / 5));
  }
  groups = Grouping::create(p).num_groups();
  state.counters["groups"] = groups;
}
BENCHMARK_CAPTURE(BM_RlUpdate, inception_v3, "inception_v3")->UseManualTime()->Iterations(2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RlUpdate, rnnlm, "rnnlm")->UseManualTime()->Iterations(2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RlUpdate, nmt, "nmt")->UseManualTime()->Iterations(2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace devplace
