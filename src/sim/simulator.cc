// File: simulator.cc
// The event loop of one simulated step (model in simulator.h).
#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <thread>

#include "common/check.h"

namespace devplace {

namespace {

// Min-heap orders: std heaps are max-heaps, so "less" means "later".
struct EventLater {
  template <typename E>
  bool operator()(const E& a, const E& b) const {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
};
struct ReadyLater {
  template <typename R>
  bool operator()(const R& a, const R& b) const {
    return a.time != b.time ? a.time > b.time : a.topo > b.topo;
  }
};

}  // namespace

Simulator::Simulator(const Problem& problem) : problem_(problem) {
  const Graph& g = problem.graph();
  const Cluster& c = problem.cluster();
  num_ops_ = g.num_ops();
  num_tensors_ = g.num_tensors();
  num_devices_ = c.num_devices();
  // Event codes hold an id in 25 bits and sequence numbers count to 2^32.
  DEVPLACE_CHECK(num_ops_ < (1 << 25) && num_tensors_ < (1 << 25) && num_devices_ <= kMaxDevices);

  input_begin_.reserve(num_ops_ + 1);
  output_begin_.reserve(num_ops_ + 1);
  resident_bytes_.resize(num_ops_);
  topo_index_.resize(num_ops_);
  for (OpId id = 0; id < num_ops_; ++id) {
    const Op& op = g.op(id);
    input_begin_.push_back(static_cast<int32_t>(inputs_.size()));
    for (TensorId t : op.inputs) {
      if (std::find(inputs_.begin() + input_begin_.back(), inputs_.end(), t) == inputs_.end()) inputs_.push_back(t);
    }
    output_begin_.push_back(static_cast<int32_t>(outputs_.size()));
    outputs_.insert(outputs_.end(), op.outputs.begin(), op.outputs.end());
    resident_bytes_[id] = op.parameter_bytes + op.optimizer_state_bytes;
    topo_index_[id] = g.topo_index(id);
  }
  input_begin_.push_back(static_cast<int32_t>(inputs_.size()));
  output_begin_.push_back(static_cast<int32_t>(outputs_.size()));

  consumer_begin_.reserve(num_tensors_ + 1);
  tensor_bytes_.resize(num_tensors_);
  producer_.resize(num_tensors_);
  for (TensorId t = 0; t < num_tensors_; ++t) {
    const Tensor& tensor = g.tensor(t);
    consumer_begin_.push_back(static_cast<int32_t>(consumers_.size()));
    consumers_.insert(consumers_.end(), tensor.consumers.begin(), tensor.consumers.end());
    tensor_bytes_[t] = tensor.bytes;
    producer_[t] = tensor.producer;
  }
  consumer_begin_.push_back(static_cast<int32_t>(consumers_.size()));

  for (DeviceId a = 0; a < num_devices_; ++a) {
    for (DeviceId b = 0; b < num_devices_; ++b) {
      route_begin_.push_back(static_cast<int32_t>(route_channels_.size()));
      const Route& r = c.route(a, b);
      route_channels_.insert(route_channels_.end(), r.channels.begin(), r.channels.end());
    }
  }
  route_begin_.push_back(static_cast<int32_t>(route_channels_.size()));

  pending_.resize(num_ops_);
  duration_s_.resize(num_ops_);
  uses_.resize(static_cast<size_t>(num_tensors_) * num_devices_);
  sent_.resize(num_devices_);
  busy_.resize(num_devices_);
  ready_.resize(num_devices_);
  for (auto& r : ready_) r.reserve(num_ops_ / std::max(1, num_devices_) + 16);
  events_.reserve(num_ops_ + num_tensors_ + 16);
  channel_free_s_.resize(c.num_channels());
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

void Simulator::push_event(double time, int32_t target, int32_t device) {
  const uint32_t dev = device == kNoId ? kOpDone : static_cast<uint32_t>(device);
  events_.push_back({time, seq_++, (static_cast<uint32_t>(target) << 7) | dev});
  std::push_heap(events_.begin(), events_.end(), EventLater{});
}

void Simulator::allocate(DeviceId device, int64_t bytes, double now) {
  memory_[device] += bytes;
  DeviceStats& s = result_.devices[device];
  if (memory_[device] > s.peak_memory_bytes) s.peak_memory_bytes = memory_[device];
  if (record_ && bytes != 0) result_.memory.push_back({device, now, memory_[device]});
}

void Simulator::release(DeviceId device, int64_t bytes, double now) {
  memory_[device] -= bytes;
  if (record_ && bytes != 0) result_.memory.push_back({device, now, memory_[device]});
}

void Simulator::make_ready(OpId op, DeviceId device, double now) {
  std::vector<Ready>& heap = ready_[device];
  heap.push_back({now, topo_index_[op], op});
  std::push_heap(heap.begin(), heap.end(), ReadyLater{});
}

void Simulator::start_next(DeviceId device, double now) {
  std::vector<Ready>& heap = ready_[device];
  if (busy_[device] || heap.empty()) return;
  std::pop_heap(heap.begin(), heap.end(), ReadyLater{});
  const OpId op = heap.back().op;
  heap.pop_back();
  busy_[device] = 1;
  for (int32_t i = output_begin_[op]; i < output_begin_[op + 1]; ++i) allocate(device, tensor_bytes_[outputs_[i]], now);
  const double duration = duration_s_[op];
  DeviceStats& s = result_.devices[device];
  s.busy_s += duration;
  ++s.num_ops;
  if (record_) result_.ops.push_back({op, device, now, now + duration});
  push_event(now + duration, op, kNoId);
}

void Simulator::finish_op(OpId op, double now) {
  const DeviceId d = device_of_[op];
  busy_[d] = 0;
  ++num_done_;
  const size_t D = static_cast<size_t>(num_devices_);
  for (int32_t i = input_begin_[op]; i < input_begin_[op + 1]; ++i) {
    const TensorId t = inputs_[i];
    if (--uses_[t * D + d] == 0) release(d, tensor_bytes_[t], now);
  }
  for (int32_t i = output_begin_[op]; i < output_begin_[op + 1]; ++i) {
    const TensorId t = outputs_[i];
    if (uses_[t * D + d] == 0) {  // nobody reads it: freed at once
      release(d, tensor_bytes_[t], now);
      continue;
    }
    const int64_t bytes = tensor_bytes_[t];
    for (int32_t k = consumer_begin_[t]; k < consumer_begin_[t + 1]; ++k) {
      const OpId c = consumers_[k];
      const DeviceId r = device_of_[c];
      if (r == d) {
        if (--pending_[c] == 0) make_ready(c, d, now);
        continue;
      }
      if (sent_[r] == t) continue;
      sent_[r] = t;
      // Issue the transfer: it starts when every channel of the route is free.
      const int32_t route = d * num_devices_ + r;
      double start = now;
      for (int32_t j = route_begin_[route]; j < route_begin_[route + 1]; ++j)
        start = std::max(start, channel_free_s_[route_channels_[j]]);
      const double duration = problem_.transfer_time_s(bytes, d, r);
      const double end = start + duration;
      for (int32_t j = route_begin_[route]; j < route_begin_[route + 1]; ++j) {
        const ChannelId ch = route_channels_[j];
        channel_free_s_[ch] = end;
        ChannelStats& cs = result_.channels[ch];
        cs.busy_s += duration;
        cs.bytes += bytes;
        ++cs.num_transfers;
      }
      result_.devices[d].bytes_out += bytes;
      result_.devices[r].bytes_in += bytes;
      allocate(r, bytes, now);
      if (record_) result_.transfers.push_back({t, d, r, start, end});
      push_event(end, t, r);
    }
  }
  start_next(d, now);
}

void Simulator::arrive(TensorId t, DeviceId r, double now) {
  const size_t D = static_cast<size_t>(num_devices_);
  const DeviceId src = device_of_[producer_[t]];
  if (--uses_[t * D + src] == 0) release(src, tensor_bytes_[t], now);
  for (int32_t k = consumer_begin_[t]; k < consumer_begin_[t + 1]; ++k) {
    const OpId c = consumers_[k];
    if (device_of_[c] == r && --pending_[c] == 0) make_ready(c, r, now);
  }
  start_next(r, now);
}

Status Simulator::run(const Placement& placement, const SimOptions& options) {
  if (static_cast<int>(placement.device_of_op.size()) != num_ops_)
    return invalid_input("placement has " + std::to_string(placement.device_of_op.size()) + " ops, the graph has " +
                         std::to_string(num_ops_));
  device_of_ = placement.device_of_op.data();
  record_ = options.record_timeline;
  const size_t D = static_cast<size_t>(num_devices_);

  for (DeviceId d = 0; d < num_devices_; ++d) {
    result_.devices[d] = DeviceStats{};
    ready_[d].clear();
  }
  std::fill(result_.channels.begin(), result_.channels.end(), ChannelStats{});
  result_.ops.clear();
  result_.transfers.clear();
  result_.memory.clear();
  std::fill(memory_.begin(), memory_.end(), 0);
  std::fill(busy_.begin(), busy_.end(), 0);
  std::fill(sent_.begin(), sent_.end(), kNoId);
  std::fill(channel_free_s_.begin(), channel_free_s_.end(), 0.0);
  // A completed run leaves every count at zero (each reader of each copy
  // finished), so the 4-bytes-per-(tensor, device) array is cleared only
  // after a run that stopped early.
  if (!uses_clean_) std::fill(uses_.begin(), uses_.end(), 0);
  uses_clean_ = false;
  events_.clear();
  seq_ = 0;
  DEVPLACE_CHECK(static_cast<uint64_t>(num_ops_) + static_cast<uint64_t>(consumers_.size()) < (uint64_t{1} << 32));
  num_done_ = 0;

  for (OpId op = 0; op < num_ops_; ++op) {
    const DeviceId d = device_of_[op];
    if (d < 0 || d >= num_devices_)
      return invalid_input("op '" + problem_.graph().op(op).name + "': device #" + std::to_string(d) +
                           " is not in the cluster");
    duration_s_[op] = problem_.op_time_s(op, d);
    if (!std::isfinite(duration_s_[op]))
      return invalid_input("op '" + problem_.graph().op(op).name + "': placed on '" + problem_.cluster().device(d).name +
                           "', which has no kernel for it");
    result_.devices[d].resident_bytes += resident_bytes_[op];
    pending_[op] = input_begin_[op + 1] - input_begin_[op];
  }
  // Readers of each copy: local consumers, plus one per remote destination
  // on the producer's device (the outgoing transfer reads it).
  for (TensorId t = 0; t < num_tensors_; ++t) {
    const DeviceId p = device_of_[producer_[t]];
    for (int32_t k = consumer_begin_[t]; k < consumer_begin_[t + 1]; ++k) {
      const DeviceId r = device_of_[consumers_[k]];
      if (r != p && uses_[t * D + r]++ != 0) continue;
      ++uses_[t * D + p];
    }
  }
  for (DeviceId d = 0; d < num_devices_; ++d) {
    allocate(d, result_.devices[d].resident_bytes, 0.0);
  }
  for (OpId op = 0; op < num_ops_; ++op) {
    if (pending_[op] == 0) make_ready(op, device_of_[op], 0.0);
  }
  for (DeviceId d = 0; d < num_devices_; ++d) start_next(d, 0.0);

  double now = 0;
  while (!events_.empty()) {
    std::pop_heap(events_.begin(), events_.end(), EventLater{});
    const Event e = events_.back();
    events_.pop_back();
    now = e.time;
    const int32_t target = static_cast<int32_t>(e.code >> 7);
    const uint32_t device = e.code & 127u;
    if (device == kOpDone) {
      finish_op(target, now);
    } else {
      arrive(target, static_cast<DeviceId>(device), now);
    }
  }
  DEVPLACE_CHECK(num_done_ == num_ops_);  // the graph is acyclic, so every op runs
  uses_clean_ = true;

  result_.step_time_s = now;
  result_.oom = false;
  for (DeviceId d = 0; d < num_devices_; ++d) {
    if (result_.devices[d].peak_memory_bytes > problem_.cluster().device(d).memory_bytes) result_.oom = true;
  }
  return Status::ok_status();
}

}  // namespace devplace
