// File: problem_source.cc
// Graph + cluster + default cost model -> Problem (see problem_source.h).
#include "cli/problem_source.h"

#include "cluster/cluster_json.h"
#include "cost/cost_model.h"

namespace devplace::cli {

Result<LoadedProblem> load_problem(const std::string& graph_spec, const std::string& cluster_spec,
                                   const GraphLoadOptions& load) {
  DEVPLACE_ASSIGN_OR_RETURN(Graph graph, load_graph(graph_spec, load));
  DEVPLACE_ASSIGN_OR_RETURN(Cluster cluster, load_cluster(cluster_spec));
  auto g = std::make_unique<Graph>(std::move(graph));
  auto c = std::make_unique<Cluster>(std::move(cluster));
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  DEVPLACE_ASSIGN_OR_RETURN(Problem problem, Problem::create(*g, *c, *cost));
  return LoadedProblem{std::move(g), std::move(c), std::move(problem)};
}

}  // namespace devplace::cli
