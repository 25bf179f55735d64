// File: m_sct.cc
// Favourite children by greedy matching, then the ETF schedule (see m_sct.h).
#include "place/m_sct.h"

#include <algorithm>
#include <tuple>

#include "place/m_etf.h"

namespace devplace {

std::vector<OpId> sct_favourite_parents(const Problem& problem) {
  const Graph& g = problem.graph();
  const TransferCost edge = mean_transfer_cost(problem);
  struct Edge {
    double cost;
    int32_t parent_topo, child_topo;
    OpId parent, child;
  };
  std::vector<Edge> edges;
  edges.reserve(static_cast<size_t>(g.num_edges()));
  for (const Tensor& t : g.tensors()) {
    for (OpId c : t.consumers) {
      edges.push_back({edge.time_s(t.bytes), g.topo_index(t.producer), g.topo_index(c), t.producer, c});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return std::tie(b.cost, a.parent_topo, a.child_topo) < std::tie(a.cost, b.parent_topo, b.child_topo);
  });
  std::vector<OpId> favourite_parent(g.num_ops(), kNoId);
  std::vector<char> has_child(g.num_ops(), 0);
  for (const Edge& e : edges) {
    if (has_child[e.parent] || favourite_parent[e.child] != kNoId) continue;
    has_child[e.parent] = 1;
    favourite_parent[e.child] = e.parent;
  }
  return favourite_parent;
}

Result<Placement> MSctPlacer::place(const PlaceContext& ctx) {
  return etf_schedule(ctx.problem, ctx.grouping, sct_favourite_parents(ctx.problem)).placement();
}

}  // namespace devplace
