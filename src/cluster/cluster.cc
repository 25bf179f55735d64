// File: cluster.cc
// Cluster validation and route computation (model in cluster.h).
#include "cluster/cluster.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace devplace {

namespace {

bool positive_finite(double v) { return std::isfinite(v) && v > 0; }
bool nonnegative_finite(double v) { return std::isfinite(v) && v >= 0; }

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

Result<Cluster> Cluster::create(std::string name, std::string description, std::vector<Device> devices,
                                std::vector<std::string> switches, std::vector<Link> links,
                                std::vector<std::string> notes) {
  if (devices.empty()) return invalid_input("devices: a cluster needs at least one device");
  std::unordered_map<std::string, int> node_ids;
  for (size_t i = 0; i < devices.size(); ++i) {
    const Device& d = devices[i];
    const std::string where = "devices[" + std::to_string(i) + "]";
    if (d.name.empty()) return invalid_input(where + ".name: expected a non-empty string");
    if (!node_ids.emplace(d.name, static_cast<int>(i)).second)
      return invalid_input(where + ".name: duplicate node name '" + d.name + "'");
    if (!positive_finite(d.peak_flops)) return invalid_input(where + ".peak_flops: expected a positive number, got " + num(d.peak_flops));
    if (!positive_finite(d.memory_bandwidth_bytes_per_s))
      return invalid_input(where + ".memory_bandwidth_bytes_per_s: expected a positive number, got " +
                           num(d.memory_bandwidth_bytes_per_s));
    if (d.memory_bytes <= 0)
      return invalid_input(where + ".memory_bytes: expected a positive integer, got " + std::to_string(d.memory_bytes));
    if (!nonnegative_finite(d.launch_overhead_s))
      return invalid_input(where + ".launch_overhead_s: expected a non-negative number, got " + num(d.launch_overhead_s));
    if (!positive_finite(d.time_scale)) return invalid_input(where + ".time_scale: expected a positive number, got " + num(d.time_scale));
  }
  for (size_t i = 0; i < switches.size(); ++i) {
    const std::string where = "switches[" + std::to_string(i) + "]";
    if (switches[i].empty()) return invalid_input(where + ": expected a non-empty string");
    if (!node_ids.emplace(switches[i], static_cast<int>(devices.size() + i)).second)
      return invalid_input(where + ": duplicate node name '" + switches[i] + "'");
  }
  for (size_t i = 0; i < links.size(); ++i) {
    const Link& l = links[i];
    const std::string where = "links[" + std::to_string(i) + "]";
    if (!node_ids.count(l.a)) return invalid_input(where + ".a: unknown node '" + l.a + "'");
    if (!node_ids.count(l.b)) return invalid_input(where + ".b: unknown node '" + l.b + "'");
    if (l.a == l.b) return invalid_input(where + ": a link must join two different nodes, got '" + l.a + "' twice");
    if (!positive_finite(l.bandwidth_bytes_per_s))
      return invalid_input(where + ".bandwidth_bytes_per_s: expected a positive number, got " + num(l.bandwidth_bytes_per_s));
    if (!nonnegative_finite(l.latency_s))
      return invalid_input(where + ".latency_s: expected a non-negative number, got " + num(l.latency_s));
  }

  Cluster c;
  c.name_ = std::move(name);
  c.description_ = std::move(description);
  c.notes_ = std::move(notes);
  c.devices_ = std::move(devices);
  c.switches_ = std::move(switches);
  c.links_ = std::move(links);
  DEVPLACE_RETURN_IF_ERROR(c.compute_routes());
  return c;
}

Status Cluster::compute_routes() {
  const int num_nodes = num_devices() + static_cast<int>(switches_.size());
  std::unordered_map<std::string, int> node_of;
  for (int i = 0; i < num_devices(); ++i) node_of[devices_[i].name] = i;
  for (size_t i = 0; i < switches_.size(); ++i) node_of[switches_[i]] = num_devices() + static_cast<int>(i);

  // Outgoing channels of each node: (channel, next node).
  std::vector<std::vector<std::pair<ChannelId, int>>> out(num_nodes);
  for (size_t l = 0; l < links_.size(); ++l) {
    const int a = node_of[links_[l].a], b = node_of[links_[l].b];
    out[a].push_back({static_cast<ChannelId>(2 * l), b});
    out[b].push_back({static_cast<ChannelId>(2 * l + 1), a});
  }

  routes_.assign(static_cast<size_t>(num_devices()) * num_devices(), Route{});
  constexpr int kUnreached = std::numeric_limits<int>::max();
  for (int src = 0; src < num_devices(); ++src) {
    // Breadth-first by hops; within a hop count keep the widest bottleneck,
    // then the lowest latency. Each node is settled when its layer is expanded.
    std::vector<int> hops(num_nodes, kUnreached);
    std::vector<double> width(num_nodes, 0), latency(num_nodes, 0);
    std::vector<std::pair<ChannelId, int>> parent(num_nodes, {-1, -1});
    hops[src] = 0;
    width[src] = std::numeric_limits<double>::infinity();
    std::vector<int> layer{src};
    while (!layer.empty()) {
      std::vector<int> next;
      for (int u : layer) {
        for (auto [ch, v] : out[u]) {
          const Link& link = links_[ch / 2];
          const double w = std::min(width[u], link.bandwidth_bytes_per_s);
          const double lat = latency[u] + link.latency_s;
          if (hops[v] == kUnreached) {
            hops[v] = hops[u] + 1;
            next.push_back(v);
          } else if (hops[v] != hops[u] + 1 || w < width[v] || (w == width[v] && lat >= latency[v])) {
            continue;
          }
          width[v] = w;
          latency[v] = lat;
          parent[v] = {ch, u};
        }
      }
      layer = std::move(next);
    }
    for (int dst = 0; dst < num_devices(); ++dst) {
      if (dst == src) continue;
      if (hops[dst] == kUnreached)
        return invalid_input("links: no route from device '" + devices_[src].name + "' to device '" + devices_[dst].name + "'");
      Route& r = routes_[src * num_devices() + dst];
      for (int v = dst; v != src; v = parent[v].second) r.channels.push_back(parent[v].first);
      std::reverse(r.channels.begin(), r.channels.end());
      r.latency_s = latency[dst];
      r.bandwidth_bytes_per_s = width[dst];
    }
  }
  return Status::ok_status();
}

std::optional<DeviceId> Cluster::find_device(std::string_view name) const {
  for (DeviceId i = 0; i < num_devices(); ++i) {
    if (devices_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<DeviceId> Cluster::first_device_of_kind(DeviceKind kind) const {
  for (DeviceId i = 0; i < num_devices(); ++i) {
    if (devices_[i].kind == kind) return i;
  }
  return std::nullopt;
}

std::string Cluster::channel_name(ChannelId c) const {
  const Link& l = links_[c / 2];
  return c % 2 == 0 ? l.a + "->" + l.b : l.b + "->" + l.a;
}

}  // namespace devplace
