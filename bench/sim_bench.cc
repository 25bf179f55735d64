// File: sim_bench.cc
// devplace_bench: simulator throughput. BM_Simulate runs one simulated
// training step of a synthetic layered graph with random skip edges
// (bench_problem.h: skip_layered_graph, width 10, fan-in 2, expanded into a
// training step) of about 1k, 10k, 50k and 100k ops on k80x4 (CPU + 4
// GPUs). items_per_second is simulated ops per second.
//
// Two placements: round-robin (groups dealt over the GPUs, so nearly every
// edge is a transfer: the most events) and layers split into 4 contiguous
// blocks (few transfers: the common case for good placements).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "bench_problem.h"
#include "cost/cost_model.h"
#include "place/run_placer.h"
#include "sim/simulator.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

Placement round_robin(const Problem& p) {
  Simulator sim(p);
  PlacerRunOptions options;
  options.grouping.kind = GroupingKind::kColocation;  // the finest groups: the most transfers
  return run_placer("round-robin", p, sim, options).value().placement;
}

Placement layer_blocks(const Problem& p) {
  const Graph& g = p.graph();
  int32_t max_layer = 0;
  for (const Op& op : g.ops()) max_layer = std::max(max_layer, op.layer);
  std::vector<DeviceId> groups(g.num_groups());
  for (GroupId grp = 0; grp < g.num_groups(); ++grp) {
    const int32_t layer = std::max(0, g.op(g.group_ops(grp).front()).layer);
    groups[grp] = 1 + static_cast<DeviceId>(static_cast<int64_t>(layer) * 4 / (max_layer + 1));
  }
  return placement_from_groups(g, groups);
}

void run(benchmark::State& state, Placement (*make)(const Problem&)) {
  const BenchProblem bp = BenchProblem::with_skip_edges(state.range(0));
  const Placement placement = make(*bp.problem);
  Simulator sim(*bp.problem);
  for (auto _ : state) {
    if (!sim.run(placement).ok()) state.SkipWithError("invalid placement");
    // The const overload: the read-write one of benchmark 1.7.1 garbles doubles under GCC -O3.
    benchmark::DoNotOptimize(sim.result().step_time_s);
  }
  state.SetItemsProcessed(state.iterations() * bp.graph->num_ops());
  state.counters["ops"] = bp.graph->num_ops();
  state.counters["edges"] = static_cast<double>(bp.graph->num_edges());
  state.counters["step_ms"] = sim.result().step_time_s * 1e3;
}

void BM_Simulate(benchmark::State& state) { run(state, &round_robin); }
void BM_SimulateLayerBlocks(benchmark::State& state) { run(state, &layer_blocks); }

BENCHMARK(BM_Simulate)->Arg(1'000)->Arg(10'000)->Arg(50'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SimulateLayerBlocks)->Arg(1'000)->Arg(10'000)->Arg(50'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);

// Building the Problem (cost tables) is done once per graph; measured for scale.
void BM_CreateProblem(benchmark::State& state) {
  const BenchProblem bp = BenchProblem::with_skip_edges(state.range(0));
  for (auto _ : state) {
    Result<Problem> p = Problem::create(*bp.graph, *bp.cluster, *bp.cost);
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(state.iterations() * bp.graph->num_ops());
}
BENCHMARK(BM_CreateProblem)->Arg(10'000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace devplace
