// File: import_bench.cc
// Import speed: a ~100 MB ONNX model with weights (target: under 3 s) and a
// ~50k-op native training graph, JSON and binary (.dpg) (target: 0.1 s),
// each written once to a temporary file and then read as `devplace --graph
// FILE` reads it; and end to end, what `devplace simulate --graph FILE
// --cluster k80x4 --placement round-robin` does after start-up: read the
// file, build the cost tables, place round-robin, simulate one step
// (target: 1M ops in 3 s). The end-to-end runs make one iteration each, as
// a fresh command does: a second one in the same process finds its memory
// already faulted in, and ran 2-3x faster than the first (the mean of 3
// hid that).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "cluster/cluster_json.h"
#include "cost/cost_model.h"
#include "io/graph_source.h"
#include "io/native_binary.h"
#include "io/native_json.h"
#include "place/run_placer.h"
#include "sim/simulator.h"
#include "io/onnx_importer.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

std::string temp_path(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::string("devplace_bench_") + name)).string();
}

void fail(const Error& e) {
  std::fprintf(stderr, "import_bench: %s\n", e.message().c_str());
  std::exit(1);
}

void BM_ImportOnnx100MB(benchmark::State& state) {
  const std::string path = temp_path("100mb.onnx");
  if (Status s = write_synthetic_onnx_model(path, int64_t{100} << 20); !s.ok()) fail(s.error());
  int64_t parameter_bytes = 0;
  for (auto _ : state) {
    Result<Graph> g = read_onnx_model(path);
    if (!g.ok()) fail(g.error());
    parameter_bytes = g.value().total_parameter_bytes();
  }
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  state.counters["parameter_MB"] = static_cast<double>(parameter_bytes) / 1e6;
  std::filesystem::remove(path);
}
BENCHMARK(BM_ImportOnnx100MB)->Unit(benchmark::kMillisecond)->Iterations(3);

// range(0): 0 JSON, 1 binary.
void BM_ImportNative50k(benchmark::State& state) {
  const bool binary = state.range(0) == 1;
  const std::string path = temp_path(binary ? "50k.dpg" : "50k.json");
  Result<Graph> src = build_zoo_model("layered:width=10,layers=1250");  // ~50k ops after training expansion
  if (!src.ok()) fail(src.error());
  if (Status s = binary ? write_native_binary(src.value(), path) : write_native_json(src.value(), path); !s.ok()) fail(s.error());
  state.SetLabel(binary ? "binary" : "json");
  int ops = 0;
  for (auto _ : state) {
    Result<Graph> g = load_graph(path);
    if (!g.ok()) fail(g.error());
    ops = g.value().num_ops();
  }
  state.counters["ops"] = ops;
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::filesystem::remove(path);
}
BENCHMARK(BM_ImportNative50k)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

// The zoo's layered model at about state.range(0) ops (a layer of width 10
// is ~40 ops in a training step), as JSON (range(1) 0) or binary (1).
void BM_ReadAndSimulate(benchmark::State& state) {
  const bool binary = state.range(1) == 1;
  const std::string path = temp_path(binary ? "end_to_end.dpg" : "end_to_end.json");
  const int64_t layers = std::max<int64_t>(1, state.range(0) / 40);
  Result<Graph> src = build_zoo_model("layered:width=10,layers=" + std::to_string(layers));
  if (!src.ok()) fail(src.error());
  if (Status s = binary ? write_native_binary(src.value(), path) : write_native_json(src.value(), path); !s.ok()) fail(s.error());
  state.SetLabel(binary ? "binary" : "json");
  src = Result<Graph>(invalid_input("freed"));  // the graph written is not kept in memory
  Result<Cluster> cluster = load_cluster("k80x4");
  if (!cluster.ok()) fail(cluster.error());
  double step_s = 0;
  int ops = 0;
  for (auto _ : state) {
    Result<Graph> g = load_graph(path);
    if (!g.ok()) fail(g.error());
    const std::unique_ptr<CostModel> cost = make_default_cost_model();
    Result<Problem> problem = Problem::create(g.value(), cluster.value(), *cost);
    if (!problem.ok()) fail(problem.error());
    Simulator sim(problem.value());
    Result<PlacerRun> placed = run_placer("round-robin", problem.value(), sim, PlacerRunOptions{});
    if (!placed.ok()) fail(placed.error());
    if (!sim.run(placed.value().placement).ok()) fail(invalid_input("round-robin placement rejected"));
    step_s = sim.result().step_time_s;
    ops = g.value().num_ops();
  }
  state.counters["ops"] = ops;
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  state.counters["step_s"] = step_s;
  std::filesystem::remove(path);
}
BENCHMARK(BM_ReadAndSimulate)
    ->Args({50'000, 0})
    ->Args({50'000, 1})
    ->Args({1'000'000, 0})
    ->Args({1'000'000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace devplace
