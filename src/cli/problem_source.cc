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
  // The graph and the cluster disagree: name both files, as given.
  Result<Problem> problem = Problem::create(*g, *c, *cost);
  if (!problem.ok()) return problem.error().with_prefix(graph_spec + " on " + cluster_spec);
  return LoadedProblem{std::move(g), std::move(c), std::move(problem).value()};
}

}  // namespace devplace::cli
