// File: problem.cc
// Problem tables and feasibility checks (see problem.h).
#include "sim/problem.h"

#include "common/check.h"
#include "common/format.h"

namespace devplace {

Result<Problem> Problem::create(const Graph& graph, const Cluster& cluster, const CostModel& cost_model) {
  const int num_devices = cluster.num_devices();
  if (num_devices > kMaxDevices)
    return invalid_input("cluster '" + cluster.name() + "' has " + std::to_string(num_devices) +
                         " devices; devplace places on at most " + std::to_string(kMaxDevices));
  if (graph.num_ops() > kMaxOps || graph.num_tensors() > kMaxOps)
    return invalid_input("graph '" + quoted_value(graph.name()) + "' has " + std::to_string(graph.num_ops()) + " ops and " +
                         std::to_string(graph.num_tensors()) + " tensors; devplace simulates at most " + std::to_string(kMaxOps) +
                         " of each");
  // The simulator numbers ops, tensors and (tensor, consumer) pairs in 32 bits.
  if (static_cast<uint64_t>(graph.num_ops()) + static_cast<uint64_t>(graph.num_tensors()) +
          static_cast<uint64_t>(graph.num_edges()) >= (uint64_t{1} << 32))
    return invalid_input("graph '" + quoted_value(graph.name()) + "' has " + std::to_string(graph.num_edges()) +
                         " edges; devplace simulates fewer than 2^32 ops, tensors and edges together");
  {
    // Checked sums: a byte count near 2^63 must not wrap to a small peak.
    int64_t total = 0;
    bool overflow = false;
    auto add = [&](int64_t bytes, int64_t times) {
      int64_t product = 0;
      overflow = overflow || __builtin_mul_overflow(bytes, times, &product) || __builtin_add_overflow(total, product, &total);
    };
    for (OpId id = 0; id < graph.num_ops(); ++id) {
      add(graph.op(id).parameter_bytes, 1);
      add(graph.op(id).optimizer_state_bytes, 1);
    }
    for (TensorId t = 0; t < graph.num_tensors(); ++t) add(graph.tensor(t).bytes, 1 + num_devices);
    if (overflow || total > kMaxGraphBytes)
      return invalid_input("graph '" + quoted_value(graph.name()) + "': its parameters, optimizer state and tensors add up to more than 2^60 bytes (1 EiB); a byte count is wrong");
  }
  Problem p;
  p.graph_ = &graph;
  p.cluster_ = &cluster;
  const int n = graph.num_ops();

  p.pinned_.assign(n, kNoId);
  for (OpId id = 0; id < n; ++id) {
    const Op& op = graph.op(id);
    if (op.pinned_device.empty()) continue;
    std::optional<DeviceId> d = cluster.find_device(op.pinned_device);
    if (!d) return invalid_input("op '" + op.name + "': pinned_device '" + op.pinned_device + "' names no device of cluster '" + cluster.name() + "'");
    if (!op.has_kernel(cluster.device(*d).kind))
      return invalid_input("op '" + op.name + "': pinned to '" + op.pinned_device + "', which is a " +
                           std::string(device_kind_name(cluster.device(*d).kind)) + " and the op has no kernel for it");
    p.pinned_[id] = *d;
  }

  p.op_time_s_.assign(static_cast<size_t>(n) * num_devices, kNoKernel);
  for (OpId id = 0; id < n; ++id) {
    const Op& op = graph.op(id);
    for (DeviceId d = 0; d < num_devices; ++d) {
      const Device& dev = cluster.device(d);
      if (op.has_kernel(dev.kind)) p.op_time_s_[static_cast<size_t>(id) * num_devices + d] = cost_model.op_time_s(graph, id, dev) * dev.time_scale;
    }
  }

  p.transfer_.assign(static_cast<size_t>(num_devices) * num_devices, TransferCost{});
  for (DeviceId a = 0; a < num_devices; ++a) {
    for (DeviceId b = 0; b < num_devices; ++b) {
      p.transfer_[a * num_devices + b] = cost_model.transfer_cost(cluster.route(a, b));
    }
  }

  const DeviceMask all = num_devices == 64 ? ~DeviceMask{0} : (DeviceMask{1} << num_devices) - 1;
  p.allowed_.assign(graph.num_groups(), all);
  for (GroupId g = 0; g < graph.num_groups(); ++g) {
    DeviceMask mask = all;
    for (OpId id : graph.group_ops(g)) {
      const Op& op = graph.op(id);
      DeviceMask op_mask = 0;
      for (DeviceId d = 0; d < num_devices; ++d) {
        if (op.has_kernel(cluster.device(d).kind)) op_mask |= DeviceMask{1} << d;
      }
      if (p.pinned_[id] != kNoId) op_mask &= DeviceMask{1} << p.pinned_[id];
      if (op_mask == 0)
        return invalid_input("op '" + op.name + "': no device of cluster '" + cluster.name() + "' has a kernel for it");
      mask &= op_mask;
      if (mask == 0)
        return invalid_input("co-location group '" + graph.group_name(g) + "': no device can run all its ops (op '" + op.name +
                             "' rules out the devices the others may use)");
    }
    p.allowed_[g] = mask;
  }
  return p;
}

}  // namespace devplace
