// File: partition_graph.cc
// The quotient graph of a grouping, device speeds, and the shared finish of
// the partitioning placers (see partition_graph.h).
#include "place/partition_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/check.h"
#include "place/device_choice.h"

namespace devplace {

namespace {

// Integer weights for `values` (each >= 0) at `unit` weight per value, each
// at least 1. Where the total would exceed kMaxTotalWeight the unit shrinks
// so that it does not: max(1, round(x)) <= x + 1, so the total stays within
// scale * sum + n = kMaxTotalWeight. The caller keeps n below the cap.
std::vector<int32_t> to_weights(const std::vector<double>& values, double unit) {
  const double n = static_cast<double>(values.size());
  DEVPLACE_CHECK(n < static_cast<double>(kMaxTotalWeight));
  double total = 0;
  for (double v : values) total += v;
  double scale = unit;
  if (total * unit + n > static_cast<double>(kMaxTotalWeight)) scale = (static_cast<double>(kMaxTotalWeight) - n) / total;
  std::vector<int32_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i] = static_cast<int32_t>(std::max<int64_t>(1, std::llround(values[i] * scale)));
  }
  return out;
}

int64_t static_memory_bytes(const Grouping& grouping, int32_t group) {
  return grouping.resident_bytes(group) + grouping.output_bytes(group);
}

// Moves groups off devices whose static memory bound exceeds their capacity,
// as finish_partition describes. Returns whether it moved any.
bool relieve_memory(const Problem& problem, const Grouping& grouping, const std::vector<DeviceId>& devices,
                    std::vector<DeviceId>& device_of_group) {
  const Cluster& c = problem.cluster();
  std::vector<int64_t> used(c.num_devices(), 0);
  for (int32_t grp = 0; grp < grouping.num_groups(); ++grp) used[device_of_group[grp]] += static_memory_bytes(grouping, grp);
  auto room = [&](DeviceId d) { return c.device(d).memory_bytes - used[d]; };
  bool moved = false;
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    if (room(d) >= 0) continue;
    std::vector<int32_t> on_device;
    for (int32_t grp = 0; grp < grouping.num_groups(); ++grp) {
      if (device_of_group[grp] == d) on_device.push_back(grp);
    }
    std::stable_sort(on_device.begin(), on_device.end(), [&](int32_t a, int32_t b) {
      return static_memory_bytes(grouping, a) > static_memory_bytes(grouping, b);
    });
    for (int32_t grp : on_device) {
      if (room(d) >= 0) break;
      const int64_t bytes = static_memory_bytes(grouping, grp);
      DeviceId best = kNoId;
      for (DeviceId t : devices) {
        if (t == d || !grouping.allows(grp, t) || room(t) < bytes) continue;
        if (best == kNoId) {
          best = t;
          continue;
        }
        const bool same_kind = c.device(t).kind == c.device(d).kind;
        const bool best_same_kind = c.device(best).kind == c.device(d).kind;
        if (same_kind != best_same_kind ? same_kind : room(t) > room(best)) best = t;
      }
      if (best == kNoId) continue;
      device_of_group[grp] = best;
      used[d] -= bytes;
      used[best] += bytes;
      moved = true;
    }
  }
  return moved;
}

}  // namespace

Result<PartitionGraph> build_partition_graph(const Problem& problem, const Grouping& grouping,
                                             const std::vector<DeviceId>& devices) {
  const Graph& graph = problem.graph();
  PartitionGraph out;
  out.vertex_of_group.assign(grouping.num_groups(), kNoId);
  std::vector<double> work_us;
  for (int32_t grp = 0; grp < grouping.num_groups(); ++grp) {
    double best = std::numeric_limits<double>::infinity();
    for (DeviceId d : devices) {
      if (grouping.allows(grp, d)) best = std::min(best, grouping.work_s(grp, d));
    }
    if (!std::isfinite(best)) continue;
    out.vertex_of_group[grp] = out.num_vertices();
    out.group_of_vertex.push_back(grp);
    work_us.push_back(best);
  }
  if (out.num_vertices() >= kMaxTotalWeight)
    return invalid_input("graph '" + graph.name() + "': " + std::to_string(out.num_vertices()) +
                         " groups are too many for the 32-bit weights of Scotch and METIS");

  // Each tensor counts once per reading vertex other than its producer's.
  struct Edge {
    int32_t u, v;  // u < v
    double bytes;
  };
  std::vector<Edge> edges;
  std::vector<int32_t> readers;
  for (TensorId t = 0; t < graph.num_tensors(); ++t) {
    const Tensor& tensor = graph.tensor(t);
    const int32_t from = out.vertex_of_group[grouping.group_of(tensor.producer)];
    if (from == kNoId) continue;
    readers.clear();
    for (OpId consumer : tensor.consumers) {
      const int32_t to = out.vertex_of_group[grouping.group_of(consumer)];
      if (to != kNoId && to != from) readers.push_back(to);
    }
    std::sort(readers.begin(), readers.end());
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
    for (int32_t to : readers) edges.push_back({std::min(from, to), std::max(from, to), static_cast<double>(tensor.bytes)});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.u != b.u ? a.u < b.u : a.v < b.v; });
  size_t merged = 0;
  for (const Edge& e : edges) {
    if (merged > 0 && edges[merged - 1].u == e.u && edges[merged - 1].v == e.v) {
      edges[merged - 1].bytes += e.bytes;
    } else {
      edges[merged++] = e;
    }
  }
  edges.resize(merged);
  if (static_cast<int64_t>(edges.size()) >= kMaxTotalWeight)
    return invalid_input("graph '" + graph.name() + "': " + std::to_string(edges.size()) +
                         " group pairs are too many for the 32-bit weights of Scotch and METIS");

  out.vertex_weights = to_weights(work_us, 1e6);  // microseconds
  std::vector<double> bytes(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) bytes[i] = edges[i].bytes;
  const std::vector<int32_t> weights = to_weights(bytes, 1.0 / 1024);  // KiB

  // CSR, both directions. Edges are sorted by (u, v), so each vertex's
  // neighbours come out in increasing order.
  const int n = out.num_vertices();
  out.vertex_begin.assign(n + 1, 0);
  for (const Edge& e : edges) {
    ++out.vertex_begin[e.u + 1];
    ++out.vertex_begin[e.v + 1];
  }
  for (int v = 0; v < n; ++v) out.vertex_begin[v + 1] += out.vertex_begin[v];
  out.neighbors.resize(2 * edges.size());
  out.edge_weights.resize(2 * edges.size());
  std::vector<int32_t> next(out.vertex_begin.begin(), out.vertex_begin.end() - 1);
  for (size_t i = 0; i < edges.size(); ++i) {
    const Edge& e = edges[i];
    out.neighbors[next[e.u]] = e.v;
    out.edge_weights[next[e.u]++] = weights[i];
    out.neighbors[next[e.v]] = e.u;
    out.edge_weights[next[e.v]++] = weights[i];
  }
  return out;
}

std::vector<double> device_speeds(const Problem& problem, const Grouping& grouping, const std::vector<DeviceId>& devices) {
  std::vector<double> time_s(devices.size(), 0.0);
  bool any_common = false;
  for (int32_t grp = 0; grp < grouping.num_groups(); ++grp) {
    const bool common = std::all_of(devices.begin(), devices.end(), [&](DeviceId d) { return grouping.allows(grp, d); });
    if (!common) continue;
    any_common = true;
    for (size_t k = 0; k < devices.size(); ++k) time_s[k] += grouping.work_s(grp, devices[k]);
  }
  std::vector<double> speed(devices.size(), 1.0);
  if (devices.empty()) return speed;
  const bool usable = any_common && std::all_of(time_s.begin(), time_s.end(), [](double t) { return t > 0; });
  if (usable) {
    const double fastest = *std::min_element(time_s.begin(), time_s.end());
    for (size_t k = 0; k < devices.size(); ++k) speed[k] = fastest / time_s[k];
  } else {
    double peak = 0;
    for (DeviceId d : devices) peak = std::max(peak, problem.cluster().device(d).peak_flops);
    for (size_t k = 0; k < devices.size(); ++k) speed[k] = problem.cluster().device(devices[k]).peak_flops / peak;
  }
  return speed;
}

Result<Placement> finish_partition(const PlaceContext& ctx, const std::vector<DeviceId>& devices,
                                   std::vector<DeviceId> device_of_group) {
  const Grouping& grouping = ctx.grouping;
  DEVPLACE_CHECK(static_cast<int>(device_of_group.size()) == grouping.num_groups());
  for (int32_t grp = 0; grp < grouping.num_groups(); ++grp) {
    DEVPLACE_CHECK(device_of_group[grp] >= 0 && device_of_group[grp] < ctx.problem.num_devices());
    device_of_group[grp] = choose_allowed_device(ctx.problem, grouping, grp, device_of_group[grp]);
  }
  std::vector<DeviceId> relieved = device_of_group;
  if (!relieve_memory(ctx.problem, grouping, devices, relieved)) return grouping.to_placement(device_of_group);

  Placement mapped_placement = grouping.to_placement(device_of_group);
  Placement relieved_placement = grouping.to_placement(relieved);
  if (ctx.budget.evaluations != 0 && ctx.budget.evaluations < 2) return relieved_placement;
  DEVPLACE_ASSIGN_OR_RETURN(const Evaluation mapped, ctx.evaluator.evaluate(mapped_placement));
  DEVPLACE_ASSIGN_OR_RETURN(const Evaluation moved, ctx.evaluator.evaluate(relieved_placement));
  const bool keep_mapping =
      mapped.oom != moved.oom ? !mapped.oom : mapped.step_time_s < moved.step_time_s;
  return keep_mapping ? mapped_placement : relieved_placement;
}

}  // namespace devplace
