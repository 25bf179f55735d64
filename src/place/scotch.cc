// File: scotch.cc
// ScotchPlacer ("scotch") and place_with_scotch, which "mincut" shares.
//
// The paper's Scotch baseline maps the op graph onto the machine with the
// Scotch static mapper, which minimises communication cost (bytes cut times
// the distance between the devices they cross) under a load balance weighted
// by each processor's speed. Ours:
// - Source graph: the group graph of partition_graph.h (vertex weight = the
//   group's work on its fastest listed device in microseconds, edge weight =
//   KiB moved between the groups).
// - Target architecture: SCOTCH_archBuild0 (Scotch's decomposition-defined
//   "deco" architecture, the classic SCOTCH_archBuild; archBuild2 is its
//   multilevel variant for large machines) from a complete graph over the
//   devices. A vertex weighs the device's speed (device_speeds: how fast it
//   runs this graph, not its peak_flops) x kSpeedUnit. An edge weighs the
//   link cost: the seconds per byte of sending a tensor of this graph's mean
//   size between the two devices (the route's latency spread over the bytes
//   plus its inverse bottleneck bandwidth; mean of both directions), in
//   multiples of the cheapest pair's cost over kDistanceUnit, at most
//   kMaxDistance. The graph is complete because archBuild0 takes as distance
//   the sum of edge weights along the first path a breadth-first walk finds:
//   with an edge for every pair that is the pair's own cost.
//   SCOTCH_archCmpltw would honour speeds but treat every link alike.
// - SCOTCH_graphMapFixed: a group that exactly one listed device may run is
//   fixed there (a CPU-only data input on the CPU), so that its load and its
//   traffic count where they will be.
// - Strategy: SCOTCH_stratGraphMapBuild(SCOTCH_STRATQUALITY, k, 5% imbalance).
// - Integer bounds: vertex and edge totals are at most 2^20 (partition_graph.h),
//   distances and speed weights at most 2^9, so no product Scotch forms
//   (a cut weight times a distance, a load times a domain weight) reaches 2^31.
//
// Determinism: Scotch 7.0.3 has no SCOTCH_STRATDETERMINISTIC flag; its
// equivalent is the context option SCOTCH_OPTIONNUMDETERMINISTIC. Each call
// runs in its own SCOTCH_Context with that option and
// SCOTCH_OPTIONNUMRANDOMFIXEDSEED set, one thread (threaded runs may differ,
// and starting Scotch's threads would also pin the calling thread to a core),
// and a private random generator (SCOTCH_contextRandomClone) seeded by
// SCOTCH_contextRandomSeed from context.rng. Both graphs are bound to that
// context, so the process-wide SCOTCH_randomSeed state is neither read nor changed.
#include "place/scotch.h"

#include <stdint.h>
#include <stdio.h>
#include <scotch.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <type_traits>

#include "common/check.h"
#include "place/device_choice.h"
#include "place/partition_graph.h"

namespace devplace {

// PartitionGraph's int32_t arrays go to Scotch as they are.
static_assert(std::is_same_v<SCOTCH_Num, int32_t>, "devplace expects a Scotch built with 32-bit SCOTCH_Num");

namespace {

constexpr double kSpeedUnit = 256;    // weight of the fastest device
constexpr double kDistanceUnit = 8;   // distance of the cheapest pair of devices
constexpr double kMaxDistance = 512;
constexpr double kImbalance = 0.05;

// Runs the exit calls of Scotch objects, last registered first, on every
// path out of the scope. The objects must be declared before it.
class ExitStack {
 public:
  ExitStack() = default;
  ExitStack(const ExitStack&) = delete;
  ExitStack& operator=(const ExitStack&) = delete;
  ~ExitStack() {
    for (auto it = exits_.rbegin(); it != exits_.rend(); ++it) (*it)();
  }
  void push(std::function<void()> exit) { exits_.push_back(std::move(exit)); }

 private:
  std::vector<std::function<void()>> exits_;
};

Error scotch_error(const char* call, int code) {
  return internal_error(std::string(call) + " failed (returned " + std::to_string(code) + ")");
}

// Seconds per byte between two devices for a tensor of `bytes` bytes, both directions averaged.
double link_cost(const Problem& problem, DeviceId a, DeviceId b, double bytes) {
  const int64_t n = std::max<int64_t>(1, std::llround(bytes));
  return (problem.transfer_time_s(n, a, b) + problem.transfer_time_s(n, b, a)) / (2.0 * static_cast<double>(n));
}

// The architecture graph over `devices`, complete, in CSR form.
struct ArchGraph {
  std::vector<SCOTCH_Num> vertex_begin, neighbors, distances, speed_weights;
};

ArchGraph build_arch_graph(const Problem& problem, const Grouping& grouping, const std::vector<DeviceId>& devices) {
  const int k = static_cast<int>(devices.size());
  ArchGraph arch;
  for (double speed : device_speeds(problem, grouping, devices))
    arch.speed_weights.push_back(static_cast<SCOTCH_Num>(std::clamp(std::round(speed * kSpeedUnit), 1.0, kSpeedUnit)));

  const Graph& g = problem.graph();
  double total_bytes = 0;
  for (const Tensor& t : g.tensors()) total_bytes += static_cast<double>(t.bytes);
  const double mean_bytes = g.num_tensors() > 0 ? total_bytes / g.num_tensors() : 1.0;
  std::vector<double> cost(static_cast<size_t>(k) * k, 0.0);
  double cheapest = 0;
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) {
      if (i == j) continue;
      cost[i * k + j] = link_cost(problem, devices[i], devices[j], mean_bytes);
      if (cost[i * k + j] > 0 && (cheapest == 0 || cost[i * k + j] < cheapest)) cheapest = cost[i * k + j];
    }
  }
  for (int i = 0; i < k; ++i) {
    arch.vertex_begin.push_back(static_cast<SCOTCH_Num>(arch.neighbors.size()));
    for (int j = 0; j < k; ++j) {
      if (i == j) continue;
      const double relative = cheapest > 0 ? cost[i * k + j] / cheapest : 1.0;
      arch.neighbors.push_back(j);
      arch.distances.push_back(static_cast<SCOTCH_Num>(std::clamp(std::round(relative * kDistanceUnit), 1.0, kMaxDistance)));
    }
  }
  arch.vertex_begin.push_back(static_cast<SCOTCH_Num>(arch.neighbors.size()));
  return arch;
}

// Builds a Scotch graph over CSR arrays (borrowed: they must outlive it) and
// checks it. An empty arc array is passed as a one-element dummy.
Status build_scotch_graph(SCOTCH_Graph* graph, const std::vector<SCOTCH_Num>& vertex_begin,
                          const std::vector<SCOTCH_Num>& vertex_weights, const std::vector<SCOTCH_Num>& neighbors,
                          const std::vector<SCOTCH_Num>& edge_weights) {
  static const SCOTCH_Num kNoArc = 0;
  const SCOTCH_Num num_vertices = static_cast<SCOTCH_Num>(vertex_begin.size()) - 1;
  const SCOTCH_Num num_arcs = static_cast<SCOTCH_Num>(neighbors.size());
  if (int rc = SCOTCH_graphBuild(graph, 0, num_vertices, vertex_begin.data(), nullptr, vertex_weights.data(), nullptr,
                                 num_arcs, num_arcs > 0 ? neighbors.data() : &kNoArc,
                                 num_arcs > 0 ? edge_weights.data() : &kNoArc);
      rc != 0)
    return scotch_error("SCOTCH_graphBuild", rc);
  if (int rc = SCOTCH_graphCheck(graph); rc != 0) return scotch_error("SCOTCH_graphCheck", rc);
  return Status::ok_status();
}

// Scotch's terminal (index into `devices`) for each vertex of `graph`.
Result<std::vector<SCOTCH_Num>> map_onto_devices(const Problem& problem, const Grouping& grouping,
                                                 const PartitionGraph& graph, const std::vector<DeviceId>& devices,
                                                 SCOTCH_Num seed) {
  if (SCOTCH_numSizeof() != static_cast<int>(sizeof(SCOTCH_Num)))
    return internal_error("libscotch uses " + std::to_string(SCOTCH_numSizeof()) + "-byte integers, scotch.h " +
                          std::to_string(sizeof(SCOTCH_Num)) + "-byte ones");
  const int k = static_cast<int>(devices.size());
  const ArchGraph arch_graph = build_arch_graph(problem, grouping, devices);
  std::vector<SCOTCH_Num> terminal(graph.num_vertices(), -1);
  for (int v = 0; v < graph.num_vertices(); ++v) {
    int allowed = 0;
    for (int i = 0; i < k; ++i) {
      if (!grouping.allows(graph.group_of_vertex[v], devices[i])) continue;
      ++allowed;
      terminal[v] = i;
    }
    if (allowed != 1) terminal[v] = -1;  // free
  }

  SCOTCH_Context context;
  SCOTCH_Graph arch_source, arch_bound, source, bound;
  SCOTCH_Arch arch;
  SCOTCH_Strat arch_strategy, strategy;
  ExitStack exits;
  if (int rc = SCOTCH_contextInit(&context); rc != 0) return scotch_error("SCOTCH_contextInit", rc);
  exits.push([&] { SCOTCH_contextExit(&context); });
  if (int rc = SCOTCH_contextThreadSpawn(&context, 1, nullptr); rc != 0)
    return scotch_error("SCOTCH_contextThreadSpawn", rc);
  if (int rc = SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1); rc != 0)
    return scotch_error("SCOTCH_contextOptionSetNum(SCOTCH_OPTIONNUMDETERMINISTIC)", rc);
  if (int rc = SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1); rc != 0)
    return scotch_error("SCOTCH_contextOptionSetNum(SCOTCH_OPTIONNUMRANDOMFIXEDSEED)", rc);
  if (int rc = SCOTCH_contextRandomClone(&context); rc != 0) return scotch_error("SCOTCH_contextRandomClone", rc);
  SCOTCH_contextRandomSeed(&context, seed);

  for (SCOTCH_Graph* g : {&arch_source, &arch_bound, &source, &bound}) {
    if (int rc = SCOTCH_graphInit(g); rc != 0) return scotch_error("SCOTCH_graphInit", rc);
    exits.push([g] { SCOTCH_graphExit(g); });
  }
  DEVPLACE_RETURN_IF_ERROR(build_scotch_graph(&arch_source, arch_graph.vertex_begin, arch_graph.speed_weights,
                                              arch_graph.neighbors, arch_graph.distances));
  DEVPLACE_RETURN_IF_ERROR(
      build_scotch_graph(&source, graph.vertex_begin, graph.vertex_weights, graph.neighbors, graph.edge_weights));
  if (int rc = SCOTCH_contextBindGraph(&context, &arch_source, &arch_bound); rc != 0)
    return scotch_error("SCOTCH_contextBindGraph", rc);
  if (int rc = SCOTCH_contextBindGraph(&context, &source, &bound); rc != 0)
    return scotch_error("SCOTCH_contextBindGraph", rc);

  if (int rc = SCOTCH_archInit(&arch); rc != 0) return scotch_error("SCOTCH_archInit", rc);
  exits.push([&] { SCOTCH_archExit(&arch); });
  for (SCOTCH_Strat* s : {&arch_strategy, &strategy}) {
    if (int rc = SCOTCH_stratInit(s); rc != 0) return scotch_error("SCOTCH_stratInit", rc);
    exits.push([s] { SCOTCH_stratExit(s); });
  }
  // An empty strategy: archBuild0 uses its default bipartitioning strategy.
  if (int rc = SCOTCH_archBuild0(&arch, &arch_bound, 0, nullptr, &arch_strategy); rc != 0)
    return scotch_error("SCOTCH_archBuild0", rc);
  if (int rc = SCOTCH_stratGraphMapBuild(&strategy, SCOTCH_STRATQUALITY, k, kImbalance); rc != 0)
    return scotch_error("SCOTCH_stratGraphMapBuild", rc);
  if (int rc = SCOTCH_graphMapFixed(&bound, &arch, &strategy, terminal.data()); rc != 0)
    return scotch_error("SCOTCH_graphMapFixed", rc);

  for (SCOTCH_Num t : terminal) {
    if (t < 0 || t >= k)
      return internal_error("SCOTCH_graphMapFixed mapped a group to terminal " + std::to_string(t) + " of " +
                            std::to_string(k));
  }
  return terminal;
}

}  // namespace

Result<Placement> place_with_scotch(const PlaceContext& ctx, const std::vector<DeviceId>& devices) {
  DEVPLACE_CHECK(!devices.empty());
  const Grouping& grouping = ctx.grouping;
  DEVPLACE_ASSIGN_OR_RETURN(const PartitionGraph graph, build_partition_graph(ctx.problem, grouping, devices));
  const SCOTCH_Num seed = static_cast<SCOTCH_Num>(ctx.rng.next_u64() >> 33);  // 31 bits, non-negative

  std::vector<DeviceId> device_of_group(grouping.num_groups(), kNoId);
  if (devices.size() == 1) {
    for (int32_t grp : graph.group_of_vertex) device_of_group[grp] = devices[0];
  } else if (graph.num_vertices() > 0) {
    DEVPLACE_ASSIGN_OR_RETURN(const std::vector<SCOTCH_Num> terminal,
                              map_onto_devices(ctx.problem, grouping, graph, devices, seed));
    for (int v = 0; v < graph.num_vertices(); ++v) device_of_group[graph.group_of_vertex[v]] = devices[terminal[v]];
  }
  for (int32_t grp = 0; grp < grouping.num_groups(); ++grp) {
    if (device_of_group[grp] == kNoId) device_of_group[grp] = choose_allowed_device(ctx.problem, grouping, grp, devices[0]);
  }
  return finish_partition(ctx, devices, std::move(device_of_group));
}

Result<Placement> ScotchPlacer::place(const PlaceContext& ctx) {
  std::vector<DeviceId> devices(ctx.problem.num_devices());
  for (DeviceId d = 0; d < ctx.problem.num_devices(); ++d) devices[d] = d;
  return place_with_scotch(ctx, devices);
}

}  // namespace devplace
