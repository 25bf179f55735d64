// File: problem_source.h
// load_problem: the graph and cluster a command names, with the Problem built
// from them under the default cost model, held together so that the Problem's
// borrowed graph and cluster live exactly as long as it does.
#pragma once

#include <memory>
#include <string>

#include "cluster/cluster.h"
#include "common/status.h"
#include "graph/graph.h"
#include "io/graph_source.h"
#include "sim/problem.h"

namespace devplace::cli {

struct LoadedProblem {
  std::unique_ptr<Graph> graph;      // on the heap, so that moving this keeps
  std::unique_ptr<Cluster> cluster;  // problem's pointers valid
  Problem problem;
};

// `graph_spec` as load_graph takes it, `cluster_spec` as load_cluster takes it.
Result<LoadedProblem> load_problem(const std::string& graph_spec, const std::string& cluster_spec,
                                   const GraphLoadOptions& load);

}  // namespace devplace::cli
