// File: problem.h
// Problem: one graph on one cluster under one cost model, with the numbers
// the simulator and the placers need precomputed into flat tables: op time
// per (op, device), transfer cost per (device, device), the devices each
// co-location group may use (kernels and pins).
//
// A Problem does not own the graph or the cluster: both must outlive it.
// It is immutable after create() and safe to share between threads.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "cluster/cluster.h"
#include "common/status.h"
#include "cost/cost_model.h"
#include "graph/graph.h"

namespace devplace {

// Set of devices as a bit mask (a cluster has at most 64 devices).
using DeviceMask = uint64_t;
inline constexpr int kMaxDevices = 64;
// The most ops (and tensors) a problem may hold: the simulator packs ids in 25 bits.
inline constexpr int kMaxOps = (1 << 25) - 1;
// The most bytes a graph may hold in all: its parameters, optimizer state,
// and every tensor once on each device. Every byte sum of the simulator
// then fits in 64 bits.
inline constexpr int64_t kMaxGraphBytes = int64_t{1} << 60;

class Problem {
 public:
  // Fails on a graph over kMaxOps ops or tensors or kMaxGraphBytes bytes,
  // a pin naming no device of the cluster, a cluster with more than
  // 64 devices, or a co-location group that no single device can run
  // (kernels and pins of its ops disagree).
  static Result<Problem> create(const Graph& graph, const Cluster& cluster, const CostModel& cost_model);

  const Graph& graph() const { return *graph_; }
  const Cluster& cluster() const { return *cluster_; }
  int num_ops() const { return graph_->num_ops(); }
  int num_devices() const { return cluster_->num_devices(); }

  // Seconds of `op` on `device`; +infinity where the device's kind has no kernel.
  double op_time_s(OpId op, DeviceId device) const { return op_time_s_[static_cast<size_t>(op) * num_devices() + device]; }
  const TransferCost& transfer_cost(DeviceId from, DeviceId to) const { return transfer_[from * num_devices() + to]; }
  double transfer_time_s(int64_t bytes, DeviceId from, DeviceId to) const { return transfer_cost(from, to).time_s(bytes); }

  // Devices that may run every op of a group: kernels for all, pins agreeing.
  DeviceMask allowed_devices(GroupId group) const { return allowed_[group]; }
  bool allows(GroupId group, DeviceId device) const { return (allowed_[group] >> device) & 1u; }
  // The device an op is pinned to, or kNoId.
  DeviceId pinned_device(OpId op) const { return pinned_[op]; }

  static constexpr double kNoKernel = std::numeric_limits<double>::infinity();

 private:
  Problem() = default;
  const Graph* graph_ = nullptr;      // not owned
  const Cluster* cluster_ = nullptr;  // not owned
  std::vector<double> op_time_s_;     // num_ops x num_devices
  std::vector<TransferCost> transfer_;  // num_devices x num_devices
  std::vector<DeviceMask> allowed_;   // per group
  std::vector<DeviceId> pinned_;      // per op
};

}  // namespace devplace
