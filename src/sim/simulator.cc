// File: simulator.cc
// The event loop of one simulated step (model in simulator.h).
//
// Layout. Ops are numbered in topological order ("pos"), which is nearly
// the order they run in, tensors by their producer's pos, and received
// copies in the order they are sent, so the records an event needs sit next
// to those of the events just before it: a run scans its arrays forward
// instead of jumping across them. The exceptions are an op's consumers far
// ahead (in a training step, the backward ops that read a forward
// activation) and, later, those consumers releasing the copies they read.
// For those the simulator touches one 4-byte word per consumer
// (pending_device_), one 4-byte input slot and one 16-byte Copy, and asks
// the cache for them when the op starts (prefetch_for_finish), an op's
// duration before they are needed.
//
// Work is decided lazily: a tensor's readers and transfers are set when its
// producer finishes, and each consumer's input slot is then pointed at the
// copy it will read, so the only pass before the loop is over the ops.
#include "sim/simulator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <thread>

#include "common/check.h"

namespace devplace {

// The per-event helpers are forced inline: as calls they cost about a
// tenth of a run's instructions in prologues, epilogues and spills
// (callgrind, docs/simulator.md "Speed"); what only a recorded timeline
// needs stays out of line.
#define DEVPLACE_HOT inline __attribute__((always_inline))

DEVPLACE_HOT void Simulator::ReadyQueue::push(double time, int32_t pos) {
  size_t i = items_.size();
  items_.push_back({time, pos});
  while (i > head_ && (items_[i - 1].time > time || (items_[i - 1].time == time && items_[i - 1].pos > pos))) {
    items_[i] = items_[i - 1];
    --i;
  }
  items_[i] = {time, pos};
}

int32_t Simulator::ReadyQueue::pop() {
  const int32_t pos = items_[head_++].pos;
  if (head_ == items_.size()) clear();  // empty: the next entries reuse the front, still in cache
  return pos;
}

Simulator::Simulator(const Problem& problem) : problem_(problem) {
  const Graph& g = problem.graph();
  const Cluster& c = problem.cluster();
  num_ops_ = g.num_ops();
  num_tensors_ = g.num_tensors();
  num_devices_ = c.num_devices();
  // Problem::create keeps ops + tensors + edges under 2^32, so event codes
  // (ops, then copies), copy indices and sequence numbers fit in 32 bits,
  // and ops and tensors under 2^25, so a tensor or an input count shifted
  // past a device fits in 32 bits.
  DEVPLACE_CHECK(static_cast<uint64_t>(num_ops_) + static_cast<uint64_t>(num_tensors_) +
                     static_cast<uint64_t>(g.num_edges()) < (uint64_t{1} << 32) &&
                 num_ops_ <= kMaxOps && num_tensors_ <= kMaxOps && num_devices_ <= (1 << kDeviceBits));

  // Ops in topological order; their outputs numbered in that order; one
  // input slot per distinct input tensor, in the order the op names them
  // (last_reader drops repeats in linear time).
  op_of_pos_ = g.topo_order();
  std::vector<int32_t> index_of_tensor(num_tensors_, kNoId);
  std::vector<OpId> last_reader(num_tensors_, kNoId);
  tensor_of_index_.reserve(num_tensors_);
  ops_.resize(num_ops_ + 1);
  resident_bytes_.resize(num_ops_);
  num_inputs_.resize(num_ops_);
  uint32_t num_slots = 0;
  for (int32_t pos = 0; pos < num_ops_; ++pos) {
    const OpId id = op_of_pos_[pos];
    const Op& op = g.op(id);
    ops_[pos].output_begin = static_cast<int32_t>(tensor_of_index_.size());
    for (TensorId t : op.outputs) {
      index_of_tensor[t] = static_cast<int32_t>(tensor_of_index_.size());
      tensor_of_index_.push_back(t);
    }
    ops_[pos].input_begin = num_slots;
    for (TensorId t : op.inputs) {
      if (last_reader[t] == id) continue;
      last_reader[t] = id;
      ++num_slots;
    }
    num_inputs_[pos] = (num_slots - ops_[pos].input_begin) << kDeviceBits;
    resident_bytes_[pos] = op.parameter_bytes + op.optimizer_state_bytes;
  }
  DEVPLACE_CHECK(static_cast<int>(tensor_of_index_.size()) == num_tensors_);
  ops_[num_ops_] = {0.0, num_slots, num_tensors_};
  input_copy_.resize(num_slots);
  pending_device_.resize(num_ops_);

  // Consumer edges, per tensor in consumer op id order as Tensor::consumers
  // (graph.h): filled by visiting the consumers in id order.
  size_t max_transfers = 0;
  copies_.resize(num_tensors_);
  edge_begin_.resize(num_tensors_ + 1);
  std::vector<uint32_t> edge_end(num_tensors_);
  uint32_t num_edges = 0;
  for (int32_t index = 0; index < num_tensors_; ++index) {
    const Tensor& tensor = g.tensor(tensor_of_index_[index]);
    copies_[index].bytes = tensor.bytes;
    edge_begin_[index] = edge_end[index] = num_edges;
    num_edges += static_cast<uint32_t>(tensor.consumers.size());
    // At most one transfer to each other device.
    max_transfers += std::min<size_t>(tensor.consumers.size(), static_cast<size_t>(std::max(0, num_devices_ - 1)));
  }
  edge_begin_[num_tensors_] = num_edges;
  consumers_.resize(num_edges);
  std::fill(last_reader.begin(), last_reader.end(), kNoId);
  for (OpId id = 0; id < num_ops_; ++id) {
    const int32_t pos = g.topo_index(id);
    uint32_t slot = ops_[pos].input_begin;
    for (TensorId t : g.op(id).inputs) {
      if (last_reader[t] == id) continue;
      last_reader[t] = id;
      consumers_[edge_end[index_of_tensor[t]]++] = {pos, slot++};
    }
  }
  for (int32_t index = 0; index < num_tensors_; ++index) {
    DEVPLACE_CHECK(edge_end[index] == edge_begin_[index + 1]);
  }
  copies_.resize(num_tensors_ + max_transfers);

  // Routes padded to one length with an idle channel past the real ones
  // (its free time stays 0, and its statistics are not reported), so the
  // loops over a route run a fixed number of times.
  num_channels_ = c.num_channels();
  route_length_ = 0;
  for (DeviceId a = 0; a < num_devices_; ++a) {
    for (DeviceId b = 0; b < num_devices_; ++b) route_length_ = std::max(route_length_, static_cast<int>(c.route(a, b).channels.size()));
  }
  route_channels_.assign(static_cast<size_t>(num_devices_) * num_devices_ * route_length_, num_channels_);
  for (DeviceId a = 0; a < num_devices_; ++a) {
    for (DeviceId b = 0; b < num_devices_; ++b) {
      const Route& r = c.route(a, b);
      std::copy(r.channels.begin(), r.channels.end(), route_channels_.begin() + (a * num_devices_ + b) * route_length_);
    }
  }

  busy_.resize(num_devices_);
  ready_.resize(num_devices_);
  for (auto& r : ready_) r.reserve(num_ops_ / std::max(1, num_devices_) + 16);
  channel_free_s_.resize(num_channels_ + 1);
  channel_stats_.resize(num_channels_ + 1);
  received_count_.resize(num_devices_);
  copy_on_device_.resize(num_devices_);
  memory_.resize(num_devices_);
  result_.devices.resize(num_devices_);
  result_.channels.resize(c.num_channels());
}

Result<Evaluation> Simulator::evaluate(const Placement& placement) {
  DEVPLACE_RETURN_IF_ERROR(run(placement));
  ++num_evaluations_;
  Evaluation e;
  e.step_time_s = result_.step_time_s;
  e.oom = result_.oom;
  e.peak_memory_bytes.reserve(num_devices_);
  for (const DeviceStats& d : result_.devices) e.peak_memory_bytes.push_back(d.peak_memory_bytes);
  return e;
}

std::vector<Result<Evaluation>> Simulator::evaluate_all(const std::vector<Placement>& placements, int threads) {
  const size_t n = placements.size();
  const size_t t = std::min<size_t>(n, static_cast<size_t>(std::max(1, threads)));
  if (t <= 1) return Evaluator::evaluate_all(placements, 1);
  while (workers_.size() + 1 < t) workers_.push_back(std::make_unique<Simulator>(problem_));
  std::vector<std::optional<Result<Evaluation>>> results(n);
  auto work = [&](Simulator& sim, size_t first) {
    for (size_t i = first; i < n; i += t) results[i].emplace(sim.evaluate(placements[i]));
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < t; ++w) pool.emplace_back(work, std::ref(*workers_[w - 1]), w);
  work(*this, 0);
  for (std::thread& th : pool) th.join();
  std::vector<Result<Evaluation>> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (i % t != 0 && results[i]->ok()) ++num_evaluations_;  // the workers' evaluations count here
    out.push_back(std::move(*results[i]));
  }
  return out;
}

DEVPLACE_HOT void Simulator::push_event(double time, uint32_t code) {
  events_.push(time, (uint64_t{seq_++} << 32) | code);
}

__attribute__((noinline, cold)) void Simulator::record_memory(DeviceId device, double now) {
  result_.memory.push_back({device, now, memory_[device]});
}

DEVPLACE_HOT void Simulator::allocate(DeviceId device, int64_t bytes, double now) {
  memory_[device] += bytes;
  DeviceStats& s = result_.devices[device];
  s.peak_memory_bytes = std::max(s.peak_memory_bytes, memory_[device]);
  if (record_ && bytes != 0) record_memory(device, now);
}

DEVPLACE_HOT void Simulator::release(DeviceId device, int64_t bytes, double now) {
  memory_[device] -= bytes;
  if (record_ && bytes != 0) record_memory(device, now);
}

DEVPLACE_HOT void Simulator::make_ready(int32_t pos, DeviceId device, double now) {
  ready_[device].push(now, pos);
}

// Asks the cache for what op `pos` will touch when it finishes away from
// the forward scan: the copies it reads, and each consumer's word and
// input slot. Called as the op starts: other devices' events come in
// between, so the loads have time to land.
void Simulator::prefetch_for_finish(int32_t pos) const {
  for (uint32_t i = ops_[pos].input_begin; i < ops_[pos + 1].input_begin; ++i) {
    __builtin_prefetch(&copies_[input_copy_[i]], 1);
  }
  for (uint32_t k = edge_begin_[ops_[pos].output_begin]; k < edge_begin_[ops_[pos + 1].output_begin]; ++k) {
    __builtin_prefetch(&pending_device_[consumers_[k].pos], 1);
    __builtin_prefetch(&input_copy_[consumers_[k].slot], 1);
  }
}

DEVPLACE_HOT void Simulator::start_next(DeviceId device, double now) {
  if (!busy_[device] && !ready_[device].empty()) start_op(device, now);
}

void Simulator::start_op(DeviceId device, double now) {
  const int32_t pos = ready_[device].pop();
  busy_[device] = 1;
  for (int32_t t = ops_[pos].output_begin; t < ops_[pos + 1].output_begin; ++t) allocate(device, copies_[t].bytes, now);
  prefetch_for_finish(pos);
  const double duration = ops_[pos].duration_s;
  DeviceStats& s = result_.devices[device];
  s.busy_s += duration;
  ++s.num_ops;
  if (record_) result_.ops.push_back({op_of_pos_[pos], device, now, now + duration});
  push_event(now + duration, static_cast<uint32_t>(pos));
}

uint32_t Simulator::issue_transfer(int32_t tensor, DeviceId from, DeviceId to, double now) {
  const int64_t bytes = copies_[tensor].bytes;
  // The transfer starts when every channel of the route is free.
  const int32_t* route = &route_channels_[(from * num_devices_ + to) * route_length_];
  double start = now;
  for (int j = 0; j < route_length_; ++j) start = std::max(start, channel_free_s_[route[j]]);
  const double duration = problem_.transfer_time_s(bytes, from, to);
  const double end = start + duration;
  for (int j = 0; j < route_length_; ++j) {
    channel_free_s_[route[j]] = end;
    ChannelStats& cs = channel_stats_[route[j]];
    cs.busy_s += duration;
    cs.bytes += bytes;
    ++cs.num_transfers;
  }
  channel_free_s_[num_channels_] = 0.0;  // the padding channel stays idle
  result_.devices[from].bytes_out += bytes;
  result_.devices[to].bytes_in += bytes;
  allocate(to, bytes, now);
  if (record_) result_.transfers.push_back({tensor_of_index_[tensor], from, to, start, end});
  const uint32_t copy = num_copies_++;
  copies_[copy] = {bytes, 0, (static_cast<uint32_t>(tensor) << kDeviceBits) | static_cast<uint32_t>(to)};
  push_event(end, static_cast<uint32_t>(num_ops_) + copy);
  return copy;
}

// The outputs of the op at `pos`, finished on `device`: each one's local
// consumers get one input fewer to wait for, and each other device with a
// consumer gets one copy, sent in the order of its first consumer (op id
// order). Every consumer's input slot learns which copy it reads, and each
// copy its readers: its consumers, plus, for the home copy, one per
// transfer. The edges are walked twice, without a branch per edge on where
// the consumer is: once counting consumers per device and listing the
// other devices in order, once pointing the slots at the copies.
void Simulator::send_outputs(int32_t pos, DeviceId device, double now) {
  const uint32_t d = static_cast<uint32_t>(device);
  for (int32_t t = ops_[pos].output_begin; t < ops_[pos + 1].output_begin; ++t) {
    Copy& home = copies_[t];
    home.tensor_device = (static_cast<uint32_t>(t) << kDeviceBits) | d;
    const uint32_t first = edge_begin_[t], last = edge_begin_[t + 1];
    uint64_t seen = uint64_t{1} << d;
    int num_remote = 0;
    uint32_t remote[kMaxDevices];
    for (uint32_t k = first; k < last; ++k) {
      const int32_t c = consumers_[k].pos;
      uint32_t word = pending_device_[c];
      const uint32_t r = word & kDeviceMask;
      word -= static_cast<uint32_t>(r == d) << kDeviceBits;  // a local consumer: one input fewer
      pending_device_[c] = word;
      if (word == d) make_ready(c, device, now);  // no input left, and on this device
      ++received_count_[r];
      remote[num_remote] = r;
      num_remote += static_cast<int>(((seen >> r) & 1) ^ 1);
      seen |= uint64_t{1} << r;
    }
    home.readers = received_count_[d] + num_remote;  // the transfers read the home copy until they arrive
    received_count_[d] = 0;
    copy_on_device_[d] = static_cast<uint32_t>(t);
    if (home.readers == 0) release(device, home.bytes, now);  // nobody reads it: freed at once
    for (int j = 0; j < num_remote; ++j) {
      const uint32_t r = remote[j];
      const uint32_t copy = issue_transfer(t, device, static_cast<DeviceId>(r), now);
      copies_[copy].readers = received_count_[r];
      received_count_[r] = 0;
      copy_on_device_[r] = copy;
    }
    for (uint32_t k = first; k < last; ++k) {
      input_copy_[consumers_[k].slot] = copy_on_device_[pending_device_[consumers_[k].pos] & kDeviceMask];
    }
  }
}

void Simulator::finish_op(int32_t pos, double now) {
  const DeviceId d = static_cast<DeviceId>(pending_device_[pos] & kDeviceMask);
  busy_[d] = 0;
  ++num_done_;
  for (uint32_t i = ops_[pos].input_begin; i < ops_[pos + 1].input_begin; ++i) {
    Copy& input = copies_[input_copy_[i]];
    release(d, --input.readers == 0 ? input.bytes : 0, now);  // the last reader frees it
  }
  send_outputs(pos, d, now);
  start_next(d, now);
}

void Simulator::arrive(uint32_t copy, double now) {
  const uint32_t r = copies_[copy].tensor_device & kDeviceMask;
  const int32_t t = static_cast<int32_t>(copies_[copy].tensor_device >> kDeviceBits);
  Copy& home = copies_[t];
  release(static_cast<DeviceId>(home.tensor_device & kDeviceMask), --home.readers == 0 ? home.bytes : 0, now);
  for (uint32_t k = edge_begin_[t]; k < edge_begin_[t + 1]; ++k) {
    const int32_t c = consumers_[k].pos;
    uint32_t word = pending_device_[c];
    word -= static_cast<uint32_t>((word & kDeviceMask) == r) << kDeviceBits;  // a consumer here: one input fewer
    pending_device_[c] = word;
    if (word == r) make_ready(c, static_cast<DeviceId>(r), now);  // no input left, and on this device
  }
  start_next(static_cast<DeviceId>(r), now);
}

// The error run() reports for an invalid placement: the first op, in op id
// order, on a device outside the cluster or without a kernel for it.
Status Simulator::placement_error(const Placement& placement) const {
  for (OpId op = 0; op < num_ops_; ++op) {
    const DeviceId d = placement.device_of_op[op];
    if (d < 0 || d >= num_devices_)
      return invalid_input("op '" + problem_.graph().op(op).name + "': device #" + std::to_string(d) +
                           " is not in the cluster");
    if (!std::isfinite(problem_.op_time_s(op, d)))
      return invalid_input("op '" + problem_.graph().op(op).name + "': placed on '" + problem_.cluster().device(d).name +
                           "', which has no kernel for it");
  }
  DEVPLACE_CHECK(false);  // called only for a placement run() rejected
  return Status::ok_status();
}

Status Simulator::run(const Placement& placement, const SimOptions& options) {
  if (static_cast<int>(placement.device_of_op.size()) != num_ops_)
    return invalid_input("placement has " + std::to_string(placement.device_of_op.size()) + " ops, the graph has " +
                         std::to_string(num_ops_));
  device_of_ = placement.device_of_op.data();
  record_ = options.record_timeline;

  for (DeviceId d = 0; d < num_devices_; ++d) {
    result_.devices[d] = DeviceStats{};
    ready_[d].clear();
  }
  std::fill(channel_stats_.begin(), channel_stats_.end(), ChannelStats{});
  result_.ops.clear();
  result_.transfers.clear();
  result_.memory.clear();
  std::fill(memory_.begin(), memory_.end(), 0);
  std::fill(busy_.begin(), busy_.end(), 0);
  std::fill(channel_free_s_.begin(), channel_free_s_.end(), 0.0);
  events_.clear();
  seq_ = 0;
  num_copies_ = static_cast<uint32_t>(num_tensors_);
  num_done_ = 0;

  // The one pass before the loop: each op's device, time and pending inputs.
  bool valid = true;
  for (int32_t pos = 0; pos < num_ops_; ++pos) {
    const OpId op = op_of_pos_[pos];
    const DeviceId d = device_of_[op];
    if (d < 0 || d >= num_devices_) {
      valid = false;
      break;
    }
    ops_[pos].duration_s = problem_.op_time_s(op, d);
    valid = valid && std::isfinite(ops_[pos].duration_s);
    pending_device_[pos] = num_inputs_[pos] | static_cast<uint32_t>(d);
    result_.devices[d].resident_bytes += resident_bytes_[pos];
  }
  if (!valid) return placement_error(placement);

  for (DeviceId d = 0; d < num_devices_; ++d) {
    allocate(d, result_.devices[d].resident_bytes, 0.0);
  }
  for (int32_t pos = 0; pos < num_ops_; ++pos) {
    if (pending_device_[pos] <= kDeviceMask) make_ready(pos, static_cast<DeviceId>(pending_device_[pos]), 0.0);
  }
  for (DeviceId d = 0; d < num_devices_; ++d) start_next(d, 0.0);

  double now = 0;
  const uint32_t num_ops = static_cast<uint32_t>(num_ops_);
  while (!events_.empty()) {
    const EventQueue::Entry e = events_.pop();
    now = e.time;
    const uint32_t code = static_cast<uint32_t>(e.tie_break);
    if (code < num_ops) {
      finish_op(static_cast<int32_t>(code), now);
    } else {
      arrive(code - num_ops, now);
    }
  }
  DEVPLACE_CHECK(num_done_ == num_ops_);  // the graph is acyclic, so every op runs

  std::copy(channel_stats_.begin(), channel_stats_.begin() + num_channels_, result_.channels.begin());
  result_.step_time_s = now;
  result_.oom = false;
  for (DeviceId d = 0; d < num_devices_; ++d) {
    if (result_.devices[d].peak_memory_bytes > problem_.cluster().device(d).memory_bytes) result_.oom = true;
  }
  return Status::ok_status();
}

}  // namespace devplace
