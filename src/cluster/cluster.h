// File: cluster.h
// Cluster: the machine a graph is placed on. Devices run ops; switches only
// forward data (a PCIe switch, an NVSwitch); links join two nodes (devices or
// switches) and are full duplex: each direction is a separate channel that
// carries one transfer at a time.
//
// Contention model: a transfer from device a to device b follows the route
// between them (fewest hops, then widest bottleneck, then lowest latency) and
// holds every channel of the route for its whole duration,
//   latency_s (sum over the route) + bytes / bandwidth (bottleneck of the route).
// Two transfers whose routes share a channel (two GPUs behind one PCIe switch,
// both fed from the host) therefore queue behind each other.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

using DeviceId = int32_t;
using ChannelId = int32_t;

struct Device {
  std::string name;   // e.g. "/gpu:0"
  DeviceKind kind = DeviceKind::kCpu;
  std::string model;  // e.g. "NVIDIA Tesla K80 (one GK210 die)"
  double peak_flops = 0;                    // FP32 FLOP/s
  double memory_bandwidth_bytes_per_s = 0;  // device memory bandwidth
  int64_t memory_bytes = 0;                 // capacity usable by the step
  double launch_overhead_s = 0;             // fixed cost added to every op
  double time_scale = 1;                    // calibration: every op time on the device is multiplied by it
                                            // (whatever the cost model; `devplace calibrate` fits it)
};

struct Link {
  std::string a;  // node names (device or switch)
  std::string b;
  double bandwidth_bytes_per_s = 0;  // per direction
  double latency_s = 0;
};

// The path of transfers from one device to another.
struct Route {
  std::vector<ChannelId> channels;  // in order; empty from a device to itself
  double latency_s = 0;             // sum over the channels
  double bandwidth_bytes_per_s = 0; // bottleneck; 0 from a device to itself
};

class Cluster {
 public:
  // Validates and builds a cluster: at least one device, unique node names,
  // positive figures, links between known nodes, every device reachable from
  // every other. Errors name the field ("devices[1].peak_flops: ...").
  static Result<Cluster> create(std::string name, std::string description, std::vector<Device> devices,
                                std::vector<std::string> switches, std::vector<Link> links,
                                std::vector<std::string> notes = {});

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  const std::vector<std::string>& notes() const { return notes_; }

  int num_devices() const { return static_cast<int>(devices_.size()); }
  const Device& device(DeviceId id) const { return devices_[id]; }
  const std::vector<Device>& devices() const { return devices_; }
  std::optional<DeviceId> find_device(std::string_view name) const;
  // First device of a kind, by id.
  std::optional<DeviceId> first_device_of_kind(DeviceKind kind) const;

  const std::vector<std::string>& switches() const { return switches_; }
  const std::vector<Link>& links() const { return links_; }

  // Channel 2*l carries link l from a to b; channel 2*l+1 from b to a.
  int num_channels() const { return 2 * static_cast<int>(links_.size()); }
  std::string channel_name(ChannelId c) const;  // "a->b"
  const Link& channel_link(ChannelId c) const { return links_[c / 2]; }

  const Route& route(DeviceId from, DeviceId to) const { return routes_[from * num_devices() + to]; }

 private:
  Cluster() = default;
  Status compute_routes();

  std::string name_;
  std::string description_;
  std::vector<std::string> notes_;
  std::vector<Device> devices_;
  std::vector<std::string> switches_;
  std::vector<Link> links_;
  std::vector<Route> routes_;  // num_devices x num_devices
};

}  // namespace devplace
