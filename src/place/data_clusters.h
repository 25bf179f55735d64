// File: data_clusters.h
// Clusters of a grouping's groups that exchange much data with each other
// and little with the rest, of bounded work: heavy-edge agglomeration of the
// quotient graph (partition_graph.h), the coarsening step of multilevel
// partitioners such as METIS, stopped at the wanted number of clusters.
// The hierarchical planner's grouper leans each unit to its cluster
// (rl/hierarchical_policy.h).
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "group/grouping.h"
#include "sim/problem.h"

namespace devplace {

// The cluster (0..k-1, k = min(clusters, groups)) of each group of
// `grouping`:
// - Passes over the clusters in topological order; in each, a cluster not
//   yet merged in this pass merges with the neighbour cluster, also not yet
//   merged, that it exchanges the most bytes with, if their work together
//   is at most 1.5 x total work / clusters (a single group may exceed it)
//   and their groups may use the same devices (so a group pinned to the
//   CPU does not pull its neighbours there).
// - When a pass merges nothing, the bound doubles up to the total work;
//   then clusters of different devices may merge; with no edges left, the
//   two lightest clusters adjacent in topological order merge.
// - Clusters are numbered by the mean topological position of their groups.
// Deterministic; no error but the quotient graph's (32-bit weights).
Result<std::vector<int32_t>> data_clusters(const Problem& problem, const Grouping& grouping, int clusters);

}  // namespace devplace
