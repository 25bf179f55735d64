// File: metis.cc
// MetisPlacer ("metis"): the paper's METIS baseline (Mirhoseini et al. 2017,
// section 4). METIS_PartGraphKway splits the group graph of
// partition_graph.h (vertex weight = work in microseconds, edge weight = KiB
// moved) into one part per device, the CPU included, minimising the edge cut
// under target part weights (tpwgts) proportional to the devices' speeds
// (device_speeds: how fast each runs this graph, as "scotch") with 5%
// imbalance (ubvec 1.05); part k goes to device k. Unlike Scotch, METIS
// knows nothing of link costs or fixed vertices: a group in a part whose
// device it may not use (a CPU-only data input) moves to an allowed device,
// and memory is relieved, by finish_partition.
//
// Cases METIS 5.1 does not handle: one part (it divides by zero), and fewer
// groups than parts (it leaves parts empty and stacks groups on one). Then
// the groups go greedily, heaviest first, each to the allowed device where
// it would finish first (the work already there plus its own).
//
// Determinism: METIS 5.1 is sequential; METIS_OPTION_SEED is drawn from
// context.rng.
#include "place/metis.h"

#include <metis.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <type_traits>

#include "common/check.h"
#include "place/partition_graph.h"

namespace devplace {

// PartitionGraph's int32_t arrays go to METIS as they are (Debian: IDXTYPEWIDTH 32).
static_assert(std::is_same_v<idx_t, int32_t>, "devplace expects a METIS built with 32-bit idx_t");

namespace {

constexpr real_t kImbalance = 1.05f;

// Heaviest group first, each to the allowed device where it would finish
// first (the seconds already there plus its work there).
std::vector<DeviceId> place_greedily(const Grouping& grouping, const PartitionGraph& graph, int num_devices) {
  std::vector<int32_t> order(graph.num_vertices());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return graph.vertex_weights[a] > graph.vertex_weights[b]; });
  std::vector<double> load_s(num_devices, 0.0);
  std::vector<DeviceId> device_of_group(grouping.num_groups(), kNoId);
  for (int32_t v : order) {
    const int32_t grp = graph.group_of_vertex[v];
    DeviceId best = kNoId;
    double best_finish = 0;
    for (DeviceId d = 0; d < num_devices; ++d) {
      if (!grouping.allows(grp, d)) continue;
      const double finish = load_s[d] + grouping.work_s(grp, d);
      if (best == kNoId || finish < best_finish) {
        best = d;
        best_finish = finish;
      }
    }
    load_s[best] = best_finish;
    device_of_group[grp] = best;
  }
  return device_of_group;
}

}  // namespace

Result<Placement> MetisPlacer::place(const PlaceContext& ctx) {
  const Grouping& grouping = ctx.grouping;
  const int num_devices = ctx.problem.num_devices();
  std::vector<DeviceId> devices(num_devices);
  std::iota(devices.begin(), devices.end(), 0);
  DEVPLACE_ASSIGN_OR_RETURN(PartitionGraph graph, build_partition_graph(ctx.problem, grouping, devices));
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(ctx.rng.next_u64() >> 33);  // 31 bits, non-negative
  options[METIS_OPTION_NUMBERING] = 0;

  DEVPLACE_CHECK(graph.num_vertices() == grouping.num_groups());  // every group runs on some device
  if (num_devices == 1 || graph.num_vertices() < num_devices)
    return finish_partition(ctx, devices, place_greedily(grouping, graph, num_devices));

  const std::vector<double> speed = device_speeds(ctx.problem, grouping, devices);
  const double speed_sum = std::accumulate(speed.begin(), speed.end(), 0.0);
  std::vector<real_t> target_share(num_devices);
  real_t assigned = 0;
  for (int k = 0; k + 1 < num_devices; ++k) {
    target_share[k] = static_cast<real_t>(speed[k] / speed_sum);
    assigned += target_share[k];
  }
  target_share[num_devices - 1] = std::max<real_t>(1 - assigned, 1e-6f);  // sums to 1 despite rounding

  idx_t num_vertices = graph.num_vertices();
  idx_t num_constraints = 1;
  idx_t num_parts = num_devices;
  real_t imbalance = kImbalance;
  idx_t edge_cut = 0;
  idx_t no_arc = 0;
  std::vector<idx_t> part(graph.num_vertices(), 0);
  const bool has_arcs = graph.num_arcs() > 0;
  const int rc = METIS_PartGraphKway(&num_vertices, &num_constraints, graph.vertex_begin.data(),
                                     has_arcs ? graph.neighbors.data() : &no_arc, graph.vertex_weights.data(), nullptr,
                                     has_arcs ? graph.edge_weights.data() : &no_arc, &num_parts, target_share.data(),
                                     &imbalance, options, &edge_cut, part.data());
  if (rc != METIS_OK) return internal_error("METIS_PartGraphKway failed (returned " + std::to_string(rc) + ")");

  std::vector<DeviceId> device_of_group(grouping.num_groups(), kNoId);
  for (int v = 0; v < graph.num_vertices(); ++v) {
    if (part[v] < 0 || part[v] >= num_devices)
      return internal_error("METIS_PartGraphKway put a group in part " + std::to_string(part[v]) + " of " +
                            std::to_string(num_devices));
    device_of_group[graph.group_of_vertex[v]] = part[v];
  }
  return finish_partition(ctx, devices, std::move(device_of_group));
}

}  // namespace devplace
