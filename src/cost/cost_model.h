// File: cost_model.h
// CostModel: every number the simulator uses comes from here. Two questions:
// how long one op takes on one device, and what moving bytes along a route
// costs (alpha-beta: a fixed latency plus bytes over the bottleneck bandwidth).
//
// Unlike TensorFlow grappler's VirtualScheduler defaults, transfers are never
// free: a placer that spreads ops over devices pays for every tensor it moves.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "cluster/cluster.h"
#include "graph/graph.h"

namespace devplace {

// Linear cost of a transfer: latency_s + bytes * seconds_per_byte.
struct TransferCost {
  double latency_s = 0;
  double seconds_per_byte = 0;
  double time_s(int64_t bytes) const { return latency_s + static_cast<double>(bytes) * seconds_per_byte; }
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::string_view name() const = 0;
  // Seconds one execution of `op` takes on `device`, including the device's
  // launch overhead. Callers only ask for devices whose kind has a kernel.
  virtual double op_time_s(const Graph& graph, OpId op, const Device& device) const = 0;
  // Cost of sending bytes along `route` (device to itself: free).
  virtual TransferCost transfer_cost(const Route& route) const;
};

// The default: measured times where the graph has them for the device's
// kind, else the roofline estimate (see roofline_cost_model.h).
std::unique_ptr<CostModel> make_default_cost_model();

}  // namespace devplace
