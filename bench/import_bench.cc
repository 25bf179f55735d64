// File: import_bench.cc
// Import speed: a ~100 MB ONNX model with weights (target: under 3 s) and a
// ~50k-op native JSON training graph (target: under 1 s), each written once
// to a temporary file and then read as `devplace --graph FILE` reads it.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "io/native_json.h"
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

void BM_ImportNativeJson50k(benchmark::State& state) {
  const std::string path = temp_path("50k.json");
  Result<Graph> src = build_zoo_model("layered:width=10,layers=1250");  // ~50k ops after training expansion
  if (!src.ok()) fail(src.error());
  if (Status s = write_native_json(src.value(), path); !s.ok()) fail(s.error());
  int ops = 0;
  for (auto _ : state) {
    Result<Graph> g = read_native_json(path);
    if (!g.ok()) fail(g.error());
    ops = g.value().num_ops();
  }
  state.counters["ops"] = ops;
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::filesystem::remove(path);
}
BENCHMARK(BM_ImportNativeJson50k)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace devplace
