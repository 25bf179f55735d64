// File: bench_problem.h
// The synthetic problems the benchmarks use, on a cluster preset:
// - BenchProblem(target_ops, cluster, options): zoo:layered (width 10,
//   fan-in 2, plus `options`, e.g. ",hidden=256") expanded into a training
//   step of about `target_ops` ops (the placer benchmarks).
// - BenchProblem::with_skip_edges(target_ops): the same layered network with
//   random skip edges as well (skip_layered_graph below), the graph of the
//   simulator benchmarks: long-lived tensors and edges that reach back many
//   layers, so that a run touches its arrays out of order as real models do.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cluster/cluster_json.h"
#include "common/rng.h"
#include "cost/cost_model.h"
#include "graph/builder.h"
#include "graph/training_step.h"
#include "sim/problem.h"
#include "zoo/zoo.h"

namespace devplace {

namespace bench_internal {

[[noreturn]] inline void fail(const Error& error) {
  std::fprintf(stderr, "bench: %s\n", error.message().c_str());
  std::exit(1);
}

}  // namespace bench_internal

// A layered MatMul network with random skip edges, expanded into a training
// step (Adam) of about `target_ops` ops. As zoo:layered with width 10,
// fan-in 2, batch 64, hidden 1024: op j of layer l reads ops j and j+1
// (mod 10) of layer l-1. In addition, each op of layer l >= 2 reads, with
// probability 1/2, the output of a random op of a random earlier layer
// among l-16 .. l-2 (a skip edge). Ops are named, typed and sized as in
// zoo:layered, so the cost model prices them alike. Same seed, same graph.
inline Graph skip_layered_graph(int64_t target_ops, uint64_t seed = 17) {
  constexpr int64_t kWidth = 10, kFanIn = 2, kBatch = 64, kHidden = 1024, kMaxSkipLayers = 16;
  // A layer becomes ~47 ops in the training step: 10 forward, 10 backward,
  // 10 updates and ~17 gradient accumulations (a tensor read by k ops sums k
  // gradients).
  const int64_t layers = std::max<int64_t>(3, target_ops / 47);
  Rng rng(seed);
  GraphBuilder b("layered_skips");
  const OpId input = b.add_op("input", "Input");
  const TensorId x = b.add_output(input, "input:0", {kBatch, kHidden}, DType::kFloat32);
  std::vector<TensorId> outputs;  // layer l, op j: outputs[l * kWidth + j]
  outputs.reserve(static_cast<size_t>(layers * kWidth));
  for (int64_t l = 0; l < layers; ++l) {
    for (int64_t j = 0; j < kWidth; ++j) {
      const std::string name = "l" + std::to_string(l) + "/n" + std::to_string(j);
      const OpId op = b.add_op(name, "MatMul");
      int64_t reads = 1;
      if (l == 0) {
        b.add_input(op, x);
      } else {
        reads = kFanIn;
        for (int64_t k = 0; k < kFanIn; ++k) b.add_input(op, outputs[(l - 1) * kWidth + (j + k) % kWidth]);
        if (l >= 2 && rng.below(2) == 0) {
          const int64_t span = std::min<int64_t>(l - 1, kMaxSkipLayers - 1);  // layers l-2 back to l-span-1
          const int64_t from = l - 2 - static_cast<int64_t>(rng.below(static_cast<uint64_t>(span)));
          b.add_input(op, outputs[from * kWidth + static_cast<int64_t>(rng.below(kWidth))]);
          ++reads;
        }
      }
      Op& o = b.mutable_op(op);
      o.layer = static_cast<int32_t>(l);
      o.parameter_bytes = kHidden * kHidden * 4;
      o.flops = 2.0 * kBatch * kHidden * kHidden * static_cast<double>(reads);
      outputs.push_back(b.add_output(op, name + ":0", {kBatch, kHidden}, DType::kFloat32));
    }
  }
  const OpId loss = b.add_op("loss", "Loss");
  b.mutable_op(loss).layer = static_cast<int32_t>(layers - 1);
  b.mutable_op(loss).flops = static_cast<double>(kBatch * kHidden * kWidth);
  for (int64_t j = 0; j < kWidth; ++j) b.add_input(loss, outputs[(layers - 1) * kWidth + j]);
  b.add_output(loss, "loss:0", {}, DType::kFloat32);
  Result<Graph> forward = std::move(b).build();
  if (!forward.ok()) bench_internal::fail(forward.error());
  Result<Graph> step = expand_training_step(forward.value(), TrainingOptions{});
  if (!step.ok()) bench_internal::fail(step.error());
  return std::move(step).value();
}

struct BenchProblem {
  explicit BenchProblem(int64_t target_ops, const std::string& cluster_name = "k80x4", const std::string& options = "")
      : BenchProblem(layered_graph(target_ops, options), cluster_name) {}

  // skip_layered_graph(target_ops) on `cluster_name`.
  static BenchProblem with_skip_edges(int64_t target_ops, const std::string& cluster_name = "k80x4") {
    return BenchProblem(skip_layered_graph(target_ops), cluster_name);
  }

  BenchProblem(Graph g, const std::string& cluster_name) {
    Result<Cluster> c = load_cluster(cluster_name);
    if (!c.ok()) bench_internal::fail(c.error());
    graph = std::make_unique<Graph>(std::move(g));
    cluster = std::make_unique<Cluster>(std::move(c).value());
    cost = make_default_cost_model();
    problem = std::make_unique<Problem>(Problem::create(*graph, *cluster, *cost).value());
  }

  std::unique_ptr<Graph> graph;
  std::unique_ptr<Cluster> cluster;
  std::unique_ptr<CostModel> cost;
  std::unique_ptr<Problem> problem;

 private:
  static Graph layered_graph(int64_t target_ops, const std::string& options) {
    // A layer of width 10 becomes ~40 ops: forward, backward, update and a gradient sum each.
    const int64_t layers = std::max<int64_t>(1, target_ops / 40);
    Result<Graph> g = build_zoo_model("layered:width=10,fanin=2,layers=" + std::to_string(layers) + options);
    if (!g.ok()) bench_internal::fail(g.error());
    return std::move(g).value();
  }
};

}  // namespace devplace
