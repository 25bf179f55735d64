// File: data_clusters.cc
// Heavy-edge agglomeration of a grouping into clusters (see data_clusters.h).
#include "place/data_clusters.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "place/partition_graph.h"

namespace devplace {

namespace {

int32_t find_root(std::vector<int32_t>& parent, int32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];
    v = parent[v];
  }
  return v;
}

}  // namespace

Result<std::vector<int32_t>> data_clusters(const Problem& problem, const Grouping& grouping, int clusters) {
  const int num_groups = grouping.num_groups();
  if (clusters < 1) return invalid_input("data_clusters: expected at least 1 cluster, got " + std::to_string(clusters));
  std::vector<DeviceId> devices(problem.num_devices());
  std::iota(devices.begin(), devices.end(), 0);
  DEVPLACE_ASSIGN_OR_RETURN(PartitionGraph graph, build_partition_graph(problem, grouping, devices));
  const int n = graph.num_vertices();  // every group runs on some device: n == num_groups
  if (n != num_groups) return internal_error("data_clusters: a group runs on no device");

  // Union-find over vertices; a root holds its cluster's work and its
  // smallest vertex (the clusters' order for the passes).
  std::vector<int32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<int64_t> work(graph.vertex_weights.begin(), graph.vertex_weights.end());
  const int64_t total = std::accumulate(work.begin(), work.end(), int64_t{0});
  const int target = std::min(clusters, n);
  int64_t bound = std::max<int64_t>(1, total * 3 / (2 * int64_t{target}));
  int count = n;

  // Vertices are in group order, which is topological; a merged root is the
  // smaller vertex, so the roots stay in that order too.
  std::vector<int64_t> weight_to(n, 0);  // bytes from the current cluster to each root
  std::vector<int32_t> touched;
  // Only clusters whose groups may use the same devices merge, while any
  // such pair is left: a group pinned to the CPU does not drag its
  // neighbours there.
  std::vector<int32_t> device_set(n, 0);
  {
    std::vector<std::vector<bool>> sets;
    for (int v = 0; v < n; ++v) {
      std::vector<bool> allowed(problem.num_devices());
      for (DeviceId d = 0; d < problem.num_devices(); ++d) allowed[d] = grouping.allows(graph.group_of_vertex[v], d);
      auto it = std::find(sets.begin(), sets.end(), allowed);
      device_set[v] = static_cast<int32_t>(it - sets.begin());
      if (it == sets.end()) sets.push_back(std::move(allowed));
    }
  }
  bool mixed_sets = false;
  std::vector<std::vector<int32_t>> members(n);
  for (int v = 0; v < n; ++v) members[v] = {v};
  // Merges two clusters (roots); the smaller vertex stays the root.
  auto merge = [&](int32_t a, int32_t b) {
    const int32_t root = std::min(a, b), other = std::max(a, b);
    parent[other] = root;
    work[root] += work[other];
    members[root].insert(members[root].end(), members[other].begin(), members[other].end());
    members[other].clear();
    --count;
    return root;
  };
  while (count > target) {
    std::vector<char> merged(n, 0);
    int merges = 0;
    bool any_edge = false;
    for (int a = 0; a < n && count > target; ++a) {
      if (parent[a] != a || merged[a]) continue;
      touched.clear();
      for (int32_t v : members[a]) {
        for (int32_t arc = graph.vertex_begin[v]; arc < graph.vertex_begin[v + 1]; ++arc) {
          const int32_t b = find_root(parent, graph.neighbors[arc]);
          if (b == a) continue;
          if (weight_to[b] == 0) touched.push_back(b);
          weight_to[b] += graph.edge_weights[arc];
        }
      }
      int32_t best = -1;
      for (int32_t b : touched) {
        any_edge = true;
        if (!merged[b] && work[a] + work[b] <= bound && (mixed_sets || device_set[a] == device_set[b]) &&
            (best < 0 || weight_to[b] > weight_to[best] || (weight_to[b] == weight_to[best] && b < best)))
          best = b;
      }
      for (int32_t b : touched) weight_to[b] = 0;
      if (best < 0) continue;
      merged[merge(a, best)] = 1;
      ++merges;
    }
    if (merges > 0) continue;
    if (any_edge && bound < total) {
      bound *= 2;
      continue;
    }
    if (any_edge && !mixed_sets) {
      mixed_sets = true;
      continue;
    }
    // No edges between clusters: merge the lightest pair adjacent in order.
    std::vector<int32_t> roots;
    for (int v = 0; v < n; ++v)
      if (parent[v] == v) roots.push_back(v);
    size_t best = 0;
    for (size_t i = 1; i + 1 < roots.size(); ++i)
      if (work[roots[i]] + work[roots[i + 1]] < work[roots[best]] + work[roots[best + 1]]) best = i;
    merge(roots[best], roots[best + 1]);
  }

  // Number the clusters by the mean position of their groups.
  std::vector<int32_t> roots;
  std::vector<double> mean(n, 0.0);
  for (int v = 0; v < n; ++v) {
    if (parent[v] != v) continue;
    roots.push_back(v);
    double sum = 0;
    for (int32_t m : members[v]) sum += graph.group_of_vertex[m];
    mean[v] = sum / static_cast<double>(members[v].size());
  }
  std::stable_sort(roots.begin(), roots.end(), [&](int32_t a, int32_t b) { return mean[a] < mean[b]; });
  std::vector<int32_t> cluster(num_groups, 0);
  for (size_t i = 0; i < roots.size(); ++i)
    for (int32_t m : members[roots[i]]) cluster[graph.group_of_vertex[m]] = static_cast<int32_t>(i);
  return cluster;
}

}  // namespace devplace
