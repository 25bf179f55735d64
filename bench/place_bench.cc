// File: place_bench.cc
// Placer speed: the fast algorithms on the synthetic layered training graph
// of about 10k and 100k ops on v100x8 (a CPU and 8 GPUs), hidden size 256 so
// that the 100k-op step fits the GPUs' memory (with 1024 it needs 300 GB of
// weights and Adam state, and the placers mostly juggle a full memory). Each iteration
// is one place() call on a grouping built beforehand; BM_Grouping times
// building the paper grouping itself. items_per_second is ops placed per second.
#include <benchmark/benchmark.h>

#include "bench_problem.h"
#include "group/grouping.h"
#include "place/placer.h"
#include "sim/simulator.h"

namespace devplace {
namespace {

void BM_Place(benchmark::State& state, const char* method) {
  BenchProblem b(state.range(0), "v100x8", ",hidden=256");
  const Grouping grouping = Grouping::create(*b.problem);
  Simulator sim(*b.problem);
  std::unique_ptr<Placer> placer = make_placer(method).value();
  for (auto _ : state) {
    Rng rng(1);
    const Placement p = placer->place(PlaceContext{*b.problem, grouping, sim, Budget{}, rng}).value();
    benchmark::DoNotOptimize(p.device_of_op.data());
  }
  state.SetItemsProcessed(state.iterations() * b.problem->num_ops());
  state.counters["ops"] = b.problem->num_ops();
  state.counters["groups"] = grouping.num_groups();
}
BENCHMARK_CAPTURE(BM_Place, heft, "heft")->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Place, m_etf, "m-etf")->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Place, m_sct, "m-sct")->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Place, m_topo, "m-topo")->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

void BM_Grouping(benchmark::State& state) {
  BenchProblem b(state.range(0), "v100x8", ",hidden=256");
  for (auto _ : state) {
    const Grouping g = Grouping::create(*b.problem);
    benchmark::DoNotOptimize(g.num_groups());
  }
  state.SetItemsProcessed(state.iterations() * b.problem->num_ops());
}
BENCHMARK(BM_Grouping)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace devplace
