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
// Cost: O(ops + edges) work per run; each event also pays the event queue
// (event_queue.h), O(1) when it comes later than most of those queued, as
// nearly every event does, and O(log q) comparisons at worst, where q is
// the number of events in flight (at most one op per device plus the
// transfers under way: about ten on a 4-GPU cluster, whatever the graph's
// size). No allocation per event: the working arrays are sized at
// construction (the event queue grows to the largest q it meets and keeps
// it) and reused by every run. Ops are
// numbered in topological order, nearly the order they run in, and the
// records an event touches are small and packed, so a run scans memory
// forward (simulator.cc, "Layout"; docs/simulator.md, "Speed").
//
// A Simulator borrows its Problem (not owned; must outlive it). One
// Simulator is not thread-safe; use one per thread.
#pragma once

#include <cstdint>
#include <string_view>
#include <memory>
#include <vector>

#include "sim/evaluator.h"
#include "sim/event_queue.h"
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
  // Inside the simulator ops are named by their position in the graph's
  // topological order ("pos") and tensors by an internal index that numbers
  // the outputs of each op in that order, so the outputs of an op are a range.

  // A device's ready ops in the order they run: by the time each became
  // ready, ties by pos (topological order). An op becomes ready at the
  // current time, which never goes back, so a new entry belongs at the
  // back, or before the few entries of the same time with a larger pos: a
  // sorted array with an insertion that seldom moves anything, read from
  // the front. A heap paid log(ready ops) cache-missing levels per pop on
  // wide graphs (docs/simulator.md, "Speed").
  class ReadyQueue {
   public:
    void reserve(size_t n) { items_.reserve(n); }
    void clear() {
      items_.clear();
      head_ = 0;
    }
    bool empty() const { return head_ == items_.size(); }
    void push(double time, int32_t pos);
    int32_t pop();  // the first; the queue must not be empty

   private:
    struct Item {
      double time;
      int32_t pos;
    };
    std::vector<Item> items_;  // sorted by (time, pos) from head_ on
    size_t head_ = 0;
  };

  // What an op needs when it starts and finishes, 16 bytes: its time (per
  // run) and where its input slots and output tensors begin; they end where
  // the next op's begin (a last entry closes the ranges).
  struct OpSpan {
    double duration_s;
    uint32_t input_begin;  // into input_copy_
    int32_t output_begin;  // internal tensor index
  };
  // One copy of a tensor on a device, 16 bytes: the producer's ("home")
  // copy, indexed by the internal tensor index, or a received one, indexed
  // num_tensors_ + transfer number (transfers numbered in issue order).
  struct Copy {
    int64_t bytes;
    int32_t readers;         // per run: readers not yet done (consumers here; for a home copy also its transfers)
    uint32_t tensor_device;  // per run: (internal tensor index << kDeviceBits) | device
  };
  // One (tensor, consumer) edge: the consumer's pos and the input slot of
  // that consumer that reads the tensor.
  struct ConsumerEdge {
    int32_t pos;
    uint32_t slot;
  };
  static constexpr int kDeviceBits = 6;
  static constexpr uint32_t kDeviceMask = (1u << kDeviceBits) - 1;
  static_assert((1 << kDeviceBits) >= kMaxDevices, "a device id must fit in kDeviceBits");

  void push_event(double time, uint32_t code);
  void make_ready(int32_t pos, DeviceId device, double now);
  void prefetch_for_finish(int32_t pos) const;
  void start_next(DeviceId device, double now);  // if the device is idle and has a ready op: start_op
  void start_op(DeviceId device, double now);    // starts the device's first ready op
  void finish_op(int32_t pos, double now);
  void send_outputs(int32_t pos, DeviceId device, double now);
  uint32_t issue_transfer(int32_t tensor, DeviceId from, DeviceId to, double now);
  void arrive(uint32_t copy, double now);
  void allocate(DeviceId device, int64_t bytes, double now);
  void record_memory(DeviceId device, double now);  // a memory sample of the timeline
  void release(DeviceId device, int64_t bytes, double now);
  Status placement_error(const Placement& placement) const;

  const Problem& problem_;  // not owned
  std::vector<std::unique_ptr<Simulator>> workers_;  // for evaluate_all
  int num_ops_ = 0;
  int num_tensors_ = 0;
  int num_devices_ = 0;

  // Placement-independent arrays, built by the constructor.
  std::vector<OpId> op_of_pos_;            // the graph's topological order
  std::vector<TensorId> tensor_of_index_;  // internal tensor index -> TensorId
  std::vector<int64_t> resident_bytes_;    // per pos: parameters + optimizer state
  std::vector<uint32_t> num_inputs_;       // per pos: distinct input tensors, << kDeviceBits
  std::vector<uint32_t> edge_begin_;       // per tensor (+1): its edges in consumers_
  std::vector<ConsumerEdge> consumers_;    // per tensor, in consumer op id order
  int num_channels_ = 0;
  int route_length_ = 0;                 // the longest route's channels
  // Per (from, to) pair: route_length_ channels, the route's then the
  // idle channel num_channels_.
  std::vector<int32_t> route_channels_;

  // Per-run state, reused.
  const DeviceId* device_of_ = nullptr;  // the placement, by OpId
  bool record_ = false;
  std::vector<OpSpan> ops_;           // per pos, + 1 closing the ranges
  // Per pos: (inputs not yet on its device << kDeviceBits) | its device.
  // The one word a producer or an arriving transfer reads and updates for
  // each consumer, which may sit anywhere in the graph: 4 bytes, 16 to a
  // cache line.
  std::vector<uint32_t> pending_device_;
  std::vector<uint32_t> input_copy_;  // per input slot: the copy it reads, set when the tensor's producer finishes
  std::vector<Copy> copies_;          // home copies, then received copies in issue order
  uint32_t num_copies_ = 0;           // in use: num_tensors_ + transfers issued so far
  std::vector<int32_t> received_count_;   // per device: scratch of send_outputs, zero between calls
  std::vector<uint32_t> copy_on_device_;  // per device: scratch of send_outputs
  std::vector<char> busy_;            // per device
  std::vector<ReadyQueue> ready_;     // per device
  // The events: the tie-break is the issue number above the event's code
  // (< num_ops_: the op at that pos finished; else num_ops_ + the received
  // copy that arrived).
  EventQueue events_;
  std::vector<double> channel_free_s_;       // per channel, + the idle one
  std::vector<ChannelStats> channel_stats_;  // per channel, + the idle one
  std::vector<int64_t> memory_;
  uint32_t seq_ = 0;
  int64_t num_done_ = 0;
  SimResult result_;
};

}  // namespace devplace
