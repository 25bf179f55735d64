// File: partition_graph.h
// PartitionGraph: the grouping's quotient graph in the compressed sparse row
// form that graph partitioners take (Scotch, METIS), and the rules the three
// partitioning placers ("scotch", "mincut", "metis") share: what a device's
// speed is, and how a partitioner's answer becomes a placement.
//
// A vertex is a group of the grouping, weighted by its compute cost (its work
// on the fastest device it may use, in microseconds). An edge joins two groups
// when one writes a tensor the other reads, weighted by the bytes the step
// moves between them in both directions (each tensor once per reading group,
// as the simulator sends it once per destination device), in KiB. Duplicate
// edges are merged, there are no self loops, and each edge is stored in both
// directions with the same weight.
//
// Integer weights: Debian's METIS is built with 32-bit idx_t (IDXTYPEWIDTH 32)
// and Debian's Scotch with a 32-bit SCOTCH_Num (int), and both multiply
// weights together internally (a cut weight times a distance, a vertex load
// times a target share). Each total (vertex weights; edge weights, one
// direction) is therefore kept at most kMaxTotalWeight = 2^20: the preferred
// unit (microseconds, KiB) is coarsened where the graph would exceed it, and
// every weight is at least 1, so that no group or edge is free.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "group/grouping.h"
#include "place/placer.h"
#include "sim/problem.h"

namespace devplace {

inline constexpr int64_t kMaxTotalWeight = int64_t{1} << 20;

struct PartitionGraph {
  std::vector<int32_t> group_of_vertex;  // vertex -> group, in group id order
  std::vector<int32_t> vertex_of_group;  // group -> vertex, kNoId for groups left out
  std::vector<int32_t> vertex_begin;     // num_vertices + 1 offsets into neighbors
  std::vector<int32_t> neighbors;        // the other end of each arc
  std::vector<int32_t> edge_weights;     // per arc; arc (u, v) and arc (v, u) weigh the same
  std::vector<int32_t> vertex_weights;   // per vertex

  int num_vertices() const { return static_cast<int>(group_of_vertex.size()); }
  int num_arcs() const { return static_cast<int>(neighbors.size()); }  // twice the edges
};

// The quotient graph over the groups that some device of `devices` may run
// (the others are left out, with their edges); a vertex weighs the group's
// work on the fastest of those devices. Fails only on a graph too large for
// 32-bit weights (more than kMaxTotalWeight groups or group pairs).
Result<PartitionGraph> build_partition_graph(const Problem& problem, const Grouping& grouping,
                                             const std::vector<DeviceId>& devices);

// Relative speed of each device of `devices` (1 for the fastest), from how
// fast it runs this graph rather than from its peak_flops: the inverse of its
// total work over the groups every listed device may run, since a GPU's lead
// over the CPU depends on the op mix (contractions against memory-bound ops).
// Where no group runs on all of them, the ratio of peak_flops.
std::vector<double> device_speeds(const Problem& problem, const Grouping& grouping,
                                  const std::vector<DeviceId>& devices);

// The placement from a partitioner's device per group:
// - a group on a device it may not use moves to an allowed one
//   (choose_allowed_device: same kind first);
// - memory, where cheap: a device whose groups' resident_bytes + output_bytes
//   (a static upper bound on its peak: every output alive at once) exceed its
//   memory_bytes sheds its largest groups to the device of `devices` with the
//   most room that they fit on (same kind first), until it fits or nothing
//   fits anywhere. As the bound overestimates, both the mapping and the moved
//   one are then scored with the evaluator when the budget allows two
//   evaluations, and the better one wins (no OOM first, then step time);
//   without that budget the moved one is returned.
Result<Placement> finish_partition(const PlaceContext& context, const std::vector<DeviceId>& devices,
                                   std::vector<DeviceId> device_of_group);

}  // namespace devplace
