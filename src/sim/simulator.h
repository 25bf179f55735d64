// File: simulator.h
// Simulator: event-driven simulation of one step of a placed graph.
//
// Model:
// - Each device runs one op at a time. An op is ready when all its input
//   tensors are on its device; ready ops run in the order they became ready
//   (ties: topological order). Op times come from the Problem's cost table.
// - When an op finishes, each output tensor is sent once to every other
//   device that has a consumer of it, along the cluster's route; a transfer
//   holds every channel (link direction) of its route from its start to its
//   end, so transfers sharing a channel queue in the order they were issued.
//   Consumers on the destination all read the one received copy.
// - Memory per device: resident bytes (parameters and optimizer state of the
//   ops placed there) for the whole step, plus each tensor from the moment it
//   is allocated (the producer's start on the producer's device; the moment
//   the transfer is issued on a destination) until its last reader there is
//   done (a consumer op finishing, or the outgoing transfer completing). In
//   a training graph forward activations are read by their backward ops, so
//   they stay alive until then. OOM: a device's peak exceeds its capacity;
//   the step is still simulated to the end.
//
// Cost: O((ops + edges) log ops) per run, with no allocation per event: all
// working arrays are sized at construction and reused by every run.
//
// A Simulator borrows its Problem (not owned; must outlive it). One
// Simulator is not thread-safe; use one per thread.
#pragma once

#include <cstdint>
#include <string_view>
#include <memory>
#include <vector>

#include "sim/evaluator.h"
#include "sim/problem.h"

namespace devplace {

struct SimOptions {
  bool record_timeline = false;  // fill ops, transfers and memory in SimResult
};

struct DeviceStats {
  double busy_s = 0;
  int64_t peak_memory_bytes = 0;
  int64_t resident_bytes = 0;  // parameters + optimizer state placed here
  int32_t num_ops = 0;
  int64_t bytes_in = 0;   // received from other devices
  int64_t bytes_out = 0;  // sent to other devices
};

struct ChannelStats {
  double busy_s = 0;
  int64_t bytes = 0;
  int32_t num_transfers = 0;
};

struct OpInterval {
  OpId op;
  DeviceId device;
  double start_s;
  double end_s;
};

struct TransferInterval {
  TensorId tensor;
  DeviceId from;
  DeviceId to;
  double start_s;
  double end_s;
};

struct MemorySample {
  DeviceId device;
  double time_s;
  int64_t bytes;  // in use on the device from time_s on
};

struct SimResult {
  double step_time_s = 0;
  bool oom = false;
  std::vector<DeviceStats> devices;
  std::vector<ChannelStats> channels;  // indexed by ChannelId
  // Only with SimOptions::record_timeline:
  std::vector<OpInterval> ops;               // in start order
  std::vector<TransferInterval> transfers;   // in issue order
  std::vector<MemorySample> memory;          // in time order
};

class Simulator : public Evaluator {
 public:
  explicit Simulator(const Problem& problem);

  std::string_view name() const override { return "simulator"; }
  Result<Evaluation> evaluate(const Placement& placement) override;
  // Up to `threads` placements at a time, each thread on its own simulator
  // of the same problem (kept for the next call).
  std::vector<Result<Evaluation>> evaluate_all(const std::vector<Placement>& placements, int threads) override;

  // Simulates one step. Fails, before simulating, if the placement has the
  // wrong size, names a device outside the cluster, or puts an op on a device
  // without a kernel for it. The result stays valid until the next run.
  Status run(const Placement& placement, const SimOptions& options = {});
  const SimResult& result() const { return result_; }

 private:
  // 16 bytes, so that the heap stays small in cache.
  struct Event {
    double time;
    uint32_t seq;   // issue order: events at equal times run first-issued first
    uint32_t code;  // (target << 7) | device: an op and kOpDone, or a tensor and its destination
  };
  static constexpr uint32_t kOpDone = 127;
  struct Ready {
    double time;
    int32_t topo;
    OpId op;
  };

  void push_event(double time, int32_t target, int32_t device);
  void make_ready(OpId op, DeviceId device, double now);
  void start_next(DeviceId device, double now);
  void finish_op(OpId op, double now);
  void arrive(TensorId tensor, DeviceId device, double now);
  void allocate(DeviceId device, int64_t bytes, double now);
  void release(DeviceId device, int64_t bytes, double now);

  const Problem& problem_;  // not owned
  std::vector<std::unique_ptr<Simulator>> workers_;  // for evaluate_all
  int num_ops_ = 0;
  int num_tensors_ = 0;
  int num_devices_ = 0;

  // Placement-independent graph arrays (CSR).
  std::vector<int32_t> input_begin_, inputs_;        // distinct input tensors per op
  std::vector<int32_t> output_begin_, outputs_;      // output tensors per op
  std::vector<int32_t> consumer_begin_, consumers_;  // consumer ops per tensor
  std::vector<int64_t> tensor_bytes_;
  std::vector<OpId> producer_;
  std::vector<int64_t> resident_bytes_;              // per op
  std::vector<int32_t> topo_index_;
  std::vector<int32_t> route_begin_, route_channels_;  // per (from, to) pair

  // Per-run state, reused.
  const DeviceId* device_of_ = nullptr;
  bool record_ = false;
  std::vector<int32_t> pending_;   // per op: inputs not yet on its device
  std::vector<double> duration_s_; // per op: its time on its device (a compact copy of the cost table's column)
  std::vector<int32_t> uses_;      // per (tensor, device): readers left of that copy
  bool uses_clean_ = true;         // uses_ is all zero
  std::vector<TensorId> sent_;     // per device: last tensor sent there (dedup)
  std::vector<char> busy_;         // per device
  std::vector<std::vector<Ready>> ready_;  // per device: heap
  std::vector<Event> events_;      // heap
  std::vector<double> channel_free_s_;
  std::vector<int64_t> memory_;
  uint32_t seq_ = 0;
  int64_t num_done_ = 0;
  SimResult result_;
};

}  // namespace devplace
