// File: bench_problem.h
// The synthetic problem every benchmark uses: zoo:layered (width 10, fan-in
// 2, plus `options`, e.g. ",hidden=256") expanded into a training step of
// about `target_ops` ops, on a cluster preset.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cluster/cluster_json.h"
#include "cost/cost_model.h"
#include "sim/problem.h"
#include "zoo/zoo.h"

namespace devplace {

struct BenchProblem {
  explicit BenchProblem(int64_t target_ops, const std::string& cluster_name = "k80x4", const std::string& options = "") {
    // A layer of width 10 becomes ~40 ops: forward, backward, update and a gradient sum each.
    const int64_t layers = std::max<int64_t>(1, target_ops / 40);
    Result<Graph> g = build_zoo_model("layered:width=10,fanin=2,layers=" + std::to_string(layers) + options);
    Result<Cluster> c = load_cluster(cluster_name);
    if (!g.ok() || !c.ok()) {
      std::fprintf(stderr, "bench: %s\n", (!g.ok() ? g.error() : c.error()).message().c_str());
      std::exit(1);
    }
    graph = std::make_unique<Graph>(std::move(g).value());
    cluster = std::make_unique<Cluster>(std::move(c).value());
    cost = make_default_cost_model();
    problem = std::make_unique<Problem>(Problem::create(*graph, *cluster, *cost).value());
  }
  std::unique_ptr<Graph> graph;
  std::unique_ptr<Cluster> cluster;
  std::unique_ptr<CostModel> cost;
  std::unique_ptr<Problem> problem;
};

}  // namespace devplace
