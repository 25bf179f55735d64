// Simulator step times, memory and traffic on 3-5 op graphs, checked by hand.
// Op times are given as measured GPU/CPU times so that the sums are exact.
#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <queue>
#include <tuple>

#include "../test_clusters.h"
#include "common/rng.h"
#include "cost/cost_model.h"
#include "graph/builder.h"
#include "graph/training_step.h"

namespace devplace {
namespace {

constexpr double kMs = 1e-3;

// Adds an op with a measured time (same on CPU and GPU) and one output of `bytes`.
TensorId add(GraphBuilder& b, const std::string& name, double time_s, int64_t bytes, std::vector<TensorId> inputs) {
  const OpId op = b.add_op(name, "Op");
  b.mutable_op(op).measured_time_s = {time_s, time_s};
  for (TensorId t : inputs) b.add_input(op, t);
  return b.add_output(op, name + ":0", {}, DType::kFloat32, bytes);
}

struct Placed {
  explicit Placed(Graph g, int64_t memory = int64_t{1} << 30)
      : graph(std::move(g)), cluster(testing::toy_cluster(memory)), cost(make_default_cost_model()),
        problem(Problem::create(graph, cluster, *cost).value()), sim(problem) {}
  Placement on(std::vector<const char*> devices) {
    Placement p;
    for (const char* d : devices) p.device_of_op.push_back(*cluster.find_device(d));
    return p;
  }
  Graph graph;
  Cluster cluster;
  std::unique_ptr<CostModel> cost;
  Problem problem;
  Simulator sim;
};

TEST(Simulator, ChainOnOneDeviceSumsItsOps) {
  GraphBuilder b("chain");
  TensorId a = add(b, "a", 1 * kMs, 100, {});
  TensorId x = add(b, "b", 2 * kMs, 200, {a});
  add(b, "c", 3 * kMs, 50, {x});
  Placed s(std::move(b).build().value());
  ASSERT_TRUE(s.sim.run(s.on({"/gpu:0", "/gpu:0", "/gpu:0"})).ok());
  const SimResult& r = s.sim.result();
  EXPECT_DOUBLE_EQ(r.step_time_s, 6 * kMs);  // 1 + 2 + 3
  EXPECT_FALSE(r.oom);
  EXPECT_DOUBLE_EQ(r.devices[1].busy_s, 6 * kMs);
  EXPECT_EQ(r.devices[1].num_ops, 3);
  // While b runs, a (100) and b's output (200) are alive; then a is freed and c's 50 joins b's 200.
  EXPECT_EQ(r.devices[1].peak_memory_bytes, 300);
  EXPECT_EQ(r.devices[1].bytes_in + r.devices[1].bytes_out, 0);
}

TEST(Simulator, ForkOnTwoDevicesPaysOneTransfer) {
  GraphBuilder b("fork");
  TensorId a = add(b, "a", 1 * kMs, 1'000'000, {});
  add(b, "b", 2 * kMs, 10, {a});
  add(b, "c", 3 * kMs, 10, {a});
  Placed s(std::move(b).build().value());
  ASSERT_TRUE(s.sim.run(s.on({"/gpu:0", "/gpu:0", "/gpu:1"})).ok());
  const SimResult& r = s.sim.result();
  // a ends at 1 ms; a:0 goes gpu0 -> gpu1 directly: 1 ms latency + 1e6 B / 1e9 B/s = 2 ms,
  // arriving at 3 ms; c runs 3..6 ms. b runs 1..3 ms on gpu0.
  EXPECT_DOUBLE_EQ(r.step_time_s, 6 * kMs);
  EXPECT_EQ(r.devices[1].bytes_out, 1'000'000);
  EXPECT_EQ(r.devices[2].bytes_in, 1'000'000);
  // gpu1 holds the received copy (1e6) and c's output (10) while c runs.
  EXPECT_EQ(r.devices[2].peak_memory_bytes, 1'000'010);
  const ChannelId gpu0_to_gpu1 = s.cluster.route(1, 2).channels.at(0);
  EXPECT_EQ(r.channels[gpu0_to_gpu1].num_transfers, 1);
  EXPECT_DOUBLE_EQ(r.channels[gpu0_to_gpu1].busy_s, 2 * kMs);
}

TEST(Simulator, TensorIsSentOncePerDestinationDevice) {
  GraphBuilder b("fanout");
  TensorId a = add(b, "a", 1 * kMs, 1'000'000, {});
  add(b, "b", 1 * kMs, 10, {a});
  add(b, "c", 1 * kMs, 10, {a});
  Placed s(std::move(b).build().value());
  ASSERT_TRUE(s.sim.run(s.on({"/gpu:0", "/gpu:1", "/gpu:1"})).ok());
  const SimResult& r = s.sim.result();
  EXPECT_EQ(r.devices[2].bytes_in, 1'000'000);  // not 2'000'000
  // Arrival at 1 + 2 = 3 ms; b and c run one after the other on gpu1: 3..4, 4..5.
  EXPECT_DOUBLE_EQ(r.step_time_s, 5 * kMs);
}

TEST(Simulator, TransfersSharingABusQueue) {
  // a on the CPU feeds b on gpu0 and c on gpu1; both transfers cross the
  // shared cpu -> pcie channel, so the second waits for the first.
  GraphBuilder b("bus");
  TensorId a0 = add(b, "a", 1 * kMs, 1'000'000, {});
  add(b, "b", 1 * kMs, 10, {a0});
  add(b, "c", 1 * kMs, 10, {a0});
  Placed s(std::move(b).build().value());
  ASSERT_TRUE(s.sim.run(s.on({"/cpu:0", "/gpu:0", "/gpu:1"}), SimOptions{.record_timeline = true}).ok());
  const SimResult& r = s.sim.result();
  // Each transfer: 2 hops x 0.5 ms + 1e6 / 1e9 s = 2 ms. First 1..3 ms, second 3..5 ms; c runs 5..6.
  ASSERT_EQ(r.transfers.size(), 2u);
  EXPECT_DOUBLE_EQ(r.transfers[0].start_s, 1 * kMs);
  EXPECT_DOUBLE_EQ(r.transfers[0].end_s, 3 * kMs);
  EXPECT_DOUBLE_EQ(r.transfers[1].start_s, 3 * kMs);
  EXPECT_DOUBLE_EQ(r.transfers[1].end_s, 5 * kMs);
  EXPECT_DOUBLE_EQ(r.step_time_s, 6 * kMs);
}

TEST(Simulator, IndependentOpsOnTwoDevicesOverlap) {
  GraphBuilder b("parallel");
  add(b, "a", 4 * kMs, 10, {});
  add(b, "b", 3 * kMs, 10, {});
  Placed s(std::move(b).build().value());
  ASSERT_TRUE(s.sim.run(s.on({"/gpu:0", "/gpu:1"})).ok());
  EXPECT_DOUBLE_EQ(s.sim.result().step_time_s, 4 * kMs);  // max(4, 3)
  ASSERT_TRUE(s.sim.run(s.on({"/gpu:0", "/gpu:0"})).ok());
  EXPECT_DOUBLE_EQ(s.sim.result().step_time_s, 7 * kMs);  // 4 + 3
}

TEST(Simulator, ReadyOpsRunInReadyOrder) {
  // a (1 ms) and b (3 ms) on gpu0; c needs a, d needs b, both on gpu1. d's
  // input arrives later than c's, so c runs first even though d is listed first.
  GraphBuilder b("order");
  TensorId ta = add(b, "a", 1 * kMs, 0, {});
  TensorId tb = add(b, "b", 3 * kMs, 0, {});
  add(b, "d", 1 * kMs, 0, {tb});
  add(b, "c", 1 * kMs, 0, {ta});
  Placed s(std::move(b).build().value());
  ASSERT_TRUE(s.sim.run(s.on({"/gpu:0", "/gpu:0", "/gpu:1", "/gpu:1"}), SimOptions{.record_timeline = true}).ok());
  const SimResult& r = s.sim.result();
  // a: 0..1, transfer 1..2 (1 ms latency, 0 bytes), c: 2..3; b: 1..4, transfer 4..5, d: 5..6.
  std::vector<std::string> order;
  for (const OpInterval& o : r.ops) {
    if (o.device == 2) order.push_back(s.graph.op(o.op).name);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"c", "d"}));
  EXPECT_DOUBLE_EQ(r.step_time_s, 6 * kMs);
}

TEST(Simulator, ResidentMemoryBeyondCapacityIsOom) {
  GraphBuilder b("oom");
  const OpId a = b.add_op("a", "MatMul");
  b.mutable_op(a).measured_time_s = {1 * kMs, 1 * kMs};
  b.mutable_op(a).parameter_bytes = 600;
  b.add_output(a, "a:0", {}, DType::kFloat32, 300);
  const OpId c = b.add_op("c", "Op");
  b.add_input(c, 0);
  b.mutable_op(c).measured_time_s = {1 * kMs, 1 * kMs};
  Placed s(std::move(b).build().value(), /*memory=*/800);
  ASSERT_TRUE(s.sim.run(s.on({"/gpu:0", "/gpu:0"})).ok());
  const SimResult& r = s.sim.result();
  // 600 resident + 300 for a:0 = 900 > 800.
  EXPECT_EQ(r.devices[1].peak_memory_bytes, 900);
  EXPECT_EQ(r.devices[1].resident_bytes, 600);
  EXPECT_TRUE(r.oom);
  EXPECT_DOUBLE_EQ(r.step_time_s, 2 * kMs);  // still simulated to the end
}

TEST(Simulator, PeakEqualToCapacityFits) {
  GraphBuilder b("fits");
  const OpId a = b.add_op("a", "MatMul");
  b.mutable_op(a).measured_time_s = {1 * kMs, 1 * kMs};
  b.mutable_op(a).parameter_bytes = 600;
  b.add_output(a, "a:0", {}, DType::kFloat32, 300);
  Placed s(std::move(b).build().value(), /*memory=*/900);
  ASSERT_TRUE(s.sim.run(s.on({"/gpu:0"})).ok());
  EXPECT_EQ(s.sim.result().devices[1].peak_memory_bytes, 900);
  EXPECT_FALSE(s.sim.result().oom);
}

TEST(Simulator, ActivationsLiveUntilTheirBackwardOp) {
  // x -> fc (MatMul with weights) -> loss; after expansion fc/grad reads x:0,
  // so x:0 is alive from the start until fc/grad finishes.
  GraphBuilder b("mlp");
  const OpId x = b.add_op("x", "Input");
  const TensorId xt = b.add_output(x, "x:0", {250}, DType::kFloat32);  // 1000 bytes
  const OpId fc = b.add_op("fc", "MatMul");
  b.mutable_op(fc).parameter_bytes = 4000;
  b.mutable_op(fc).flops = 1e9;
  b.add_input(fc, xt);
  const TensorId h = b.add_output(fc, "fc:0", {25}, DType::kFloat32);  // 100 bytes
  const OpId loss = b.add_op("loss", "Loss");
  b.add_input(loss, h);
  b.add_output(loss, "loss:0", {}, DType::kFloat32);
  Graph train = expand_training_step(std::move(b).build().value(), TrainingOptions{Optimizer::kSgd}).value();
  Placed s(std::move(train));
  Placement p;
  p.device_of_op.assign(s.graph.num_ops(), 1);
  ASSERT_TRUE(s.sim.run(p, SimOptions{.record_timeline = true}).ok());
  const SimResult& r = s.sim.result();
  double fc_grad_end = -1, x_freed = -1;
  for (const OpInterval& o : r.ops) {
    if (s.graph.op(o.op).name == "fc/grad") fc_grad_end = o.end_s;
  }
  // Memory drops by x:0's 1000 bytes exactly when fc/grad ends.
  for (size_t i = 1; i < r.memory.size(); ++i) {
    if (r.memory[i - 1].bytes - r.memory[i].bytes == 1000) x_freed = r.memory[i].time_s;
  }
  ASSERT_GT(fc_grad_end, 0);
  EXPECT_DOUBLE_EQ(x_freed, fc_grad_end);
  EXPECT_EQ(r.devices[1].resident_bytes, 4000);  // sgd: no optimizer state
}

TEST(Simulator, SameInputSameResult) {
  GraphBuilder b("det");
  TensorId a = add(b, "a", 1 * kMs, 1000, {});
  TensorId c = add(b, "b", 2 * kMs, 1000, {a});
  add(b, "c", 1 * kMs, 1000, {a, c});
  Placed s(std::move(b).build().value());
  const Placement p = s.on({"/gpu:0", "/gpu:1", "/cpu:0"});
  ASSERT_TRUE(s.sim.run(p).ok());
  const double first = s.sim.result().step_time_s;
  const int64_t first_peak = s.sim.result().devices[0].peak_memory_bytes;
  ASSERT_TRUE(s.sim.run(s.on({"/gpu:0", "/gpu:0", "/gpu:0"})).ok());
  ASSERT_TRUE(s.sim.run(p).ok());
  EXPECT_EQ(s.sim.result().step_time_s, first);
  EXPECT_EQ(s.sim.result().devices[0].peak_memory_bytes, first_peak);
}

TEST(Simulator, RejectsAnOpOnADeviceWithoutItsKernel) {
  GraphBuilder b("cpu_only");
  TensorId a = add(b, "a", 1 * kMs, 10, {});
  add(b, "b", 1 * kMs, 10, {a});
  b.mutable_op(1).kernel_mask = 1u << static_cast<int>(DeviceKind::kCpu);
  Placed s(std::move(b).build().value());
  Status st = s.sim.run(s.on({"/gpu:0", "/gpu:0"}));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message(), "op 'b': placed on '/gpu:0', which has no kernel for it");
  EXPECT_TRUE(s.sim.run(s.on({"/gpu:0", "/cpu:0"})).ok());
}

TEST(Simulator, EvaluateCountsAndReportsPeaks) {
  GraphBuilder b("eval");
  add(b, "a", 1 * kMs, 64, {});
  Placed s(std::move(b).build().value());
  Result<Evaluation> e = s.sim.evaluate(s.on({"/gpu:1"}));
  ASSERT_TRUE(e.ok());
  EXPECT_DOUBLE_EQ(e.value().step_time_s, 1 * kMs);
  EXPECT_EQ(e.value().peak_memory_bytes, (std::vector<int64_t>{0, 0, 64}));
  EXPECT_EQ(s.sim.num_evaluations(), 1);
}

// The model of simulator.h written plainly, for clarity rather than speed:
// per-(tensor, device) reader counts set before the run, std heaps, a
// consumer scan per arrival. The simulator lays its work out for speed
// (topological numbering, copies made as tensors are sent, packed words);
// it must agree with this to the bit on every output.
SimResult reference_run(const Problem& problem, const Placement& placement) {
  const Graph& g = problem.graph();
  const Cluster& c = problem.cluster();
  const int num_devices = c.num_devices();
  auto device_of = [&](OpId op) { return placement.device_of_op[op]; };
  SimResult r;
  r.devices.resize(num_devices);
  r.channels.resize(c.num_channels());
  std::vector<std::vector<TensorId>> inputs(g.num_ops());  // distinct, in order
  for (OpId op = 0; op < g.num_ops(); ++op) {
    for (TensorId t : g.op(op).inputs) {
      if (std::find(inputs[op].begin(), inputs[op].end(), t) == inputs[op].end()) inputs[op].push_back(t);
    }
  }
  std::vector<std::vector<int>> uses(g.num_tensors(), std::vector<int>(num_devices, 0));
  for (TensorId t = 0; t < g.num_tensors(); ++t) {
    const DeviceId home = device_of(g.tensor(t).producer);
    for (OpId consumer : g.tensor(t).consumers) {
      const DeviceId there = device_of(consumer);
      if (there != home && uses[t][there]++ != 0) continue;
      ++uses[t][home];  // a local reader, or the transfer to a new device
    }
  }
  std::vector<int> pending(g.num_ops());
  std::vector<int64_t> memory(num_devices, 0);
  std::vector<bool> busy(num_devices, false);
  std::vector<double> channel_free(c.num_channels(), 0.0);
  using ReadyEntry = std::tuple<double, int32_t, OpId>;           // time, topo index, op
  using EventEntry = std::tuple<double, uint32_t, int32_t, int32_t>;  // time, seq, op or tensor, device or -1
  std::vector<std::priority_queue<ReadyEntry, std::vector<ReadyEntry>, std::greater<>>> ready(num_devices);
  std::priority_queue<EventEntry, std::vector<EventEntry>, std::greater<>> events;
  uint32_t seq = 0;
  auto allocate = [&](DeviceId d, int64_t bytes, double now) {
    memory[d] += bytes;
    r.devices[d].peak_memory_bytes = std::max(r.devices[d].peak_memory_bytes, memory[d]);
    if (bytes != 0) r.memory.push_back({d, now, memory[d]});
  };
  auto release = [&](DeviceId d, int64_t bytes, double now) {
    memory[d] -= bytes;
    if (bytes != 0) r.memory.push_back({d, now, memory[d]});
  };
  auto make_ready = [&](OpId op, double now) { ready[device_of(op)].push({now, g.topo_index(op), op}); };
  auto start_next = [&](DeviceId d, double now) {
    if (busy[d] || ready[d].empty()) return;
    const OpId op = std::get<2>(ready[d].top());
    ready[d].pop();
    busy[d] = true;
    for (TensorId t : g.op(op).outputs) allocate(d, g.tensor(t).bytes, now);
    const double duration = problem.op_time_s(op, d);
    r.devices[d].busy_s += duration;
    ++r.devices[d].num_ops;
    r.ops.push_back({op, d, now, now + duration});
    events.push({now + duration, seq++, op, -1});
  };
  auto finish = [&](OpId op, double now) {
    const DeviceId d = device_of(op);
    busy[d] = false;
    for (TensorId t : inputs[op]) {
      if (--uses[t][d] == 0) release(d, g.tensor(t).bytes, now);
    }
    for (TensorId t : g.op(op).outputs) {
      const int64_t bytes = g.tensor(t).bytes;
      if (uses[t][d] == 0) {
        release(d, bytes, now);
        continue;
      }
      std::vector<bool> sent(num_devices, false);
      for (OpId consumer : g.tensor(t).consumers) {
        const DeviceId there = device_of(consumer);
        if (there == d) {
          if (--pending[consumer] == 0) make_ready(consumer, now);
          continue;
        }
        if (sent[there]) continue;
        sent[there] = true;
        const Route& route = c.route(d, there);
        double start = now;
        for (ChannelId ch : route.channels) start = std::max(start, channel_free[ch]);
        const double duration = problem.transfer_time_s(bytes, d, there);
        for (ChannelId ch : route.channels) {
          channel_free[ch] = start + duration;
          r.channels[ch].busy_s += duration;
          r.channels[ch].bytes += bytes;
          ++r.channels[ch].num_transfers;
        }
        r.devices[d].bytes_out += bytes;
        r.devices[there].bytes_in += bytes;
        allocate(there, bytes, now);
        r.transfers.push_back({t, d, there, start, start + duration});
        events.push({start + duration, seq++, t, there});
      }
    }
    start_next(d, now);
  };
  auto arrive = [&](TensorId t, DeviceId there, double now) {
    const DeviceId home = device_of(g.tensor(t).producer);
    if (--uses[t][home] == 0) release(home, g.tensor(t).bytes, now);
    for (OpId consumer : g.tensor(t).consumers) {
      if (device_of(consumer) == there && --pending[consumer] == 0) make_ready(consumer, now);
    }
    start_next(there, now);
  };

  for (OpId op = 0; op < g.num_ops(); ++op) {
    r.devices[device_of(op)].resident_bytes += g.op(op).parameter_bytes + g.op(op).optimizer_state_bytes;
    pending[op] = static_cast<int>(inputs[op].size());
  }
  for (DeviceId d = 0; d < num_devices; ++d) allocate(d, r.devices[d].resident_bytes, 0.0);
  for (OpId op = 0; op < g.num_ops(); ++op) {
    if (pending[op] == 0) make_ready(op, 0.0);
  }
  for (DeviceId d = 0; d < num_devices; ++d) start_next(d, 0.0);
  double now = 0;
  while (!events.empty()) {
    const auto [time, unused, id, device] = events.top();
    events.pop();
    now = time;
    if (device < 0) {
      finish(id, now);
    } else {
      arrive(id, device, now);
    }
  }
  r.step_time_s = now;
  for (DeviceId d = 0; d < num_devices; ++d) {
    r.oom = r.oom || r.devices[d].peak_memory_bytes > c.device(d).memory_bytes;
  }
  return r;
}

void expect_same_results(const SimResult& a, const SimResult& b) {
  // Exact equality throughout: the same sums in the same order.
  EXPECT_EQ(a.step_time_s, b.step_time_s);
  EXPECT_EQ(a.oom, b.oom);
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (size_t d = 0; d < a.devices.size(); ++d) {
    EXPECT_EQ(a.devices[d].busy_s, b.devices[d].busy_s) << d;
    EXPECT_EQ(a.devices[d].peak_memory_bytes, b.devices[d].peak_memory_bytes) << d;
    EXPECT_EQ(a.devices[d].resident_bytes, b.devices[d].resident_bytes) << d;
    EXPECT_EQ(a.devices[d].num_ops, b.devices[d].num_ops) << d;
    EXPECT_EQ(a.devices[d].bytes_in, b.devices[d].bytes_in) << d;
    EXPECT_EQ(a.devices[d].bytes_out, b.devices[d].bytes_out) << d;
  }
  ASSERT_EQ(a.channels.size(), b.channels.size());
  for (size_t ch = 0; ch < a.channels.size(); ++ch) {
    EXPECT_EQ(a.channels[ch].busy_s, b.channels[ch].busy_s) << ch;
    EXPECT_EQ(a.channels[ch].bytes, b.channels[ch].bytes) << ch;
    EXPECT_EQ(a.channels[ch].num_transfers, b.channels[ch].num_transfers) << ch;
  }
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].op, b.ops[i].op) << i;
    EXPECT_EQ(a.ops[i].device, b.ops[i].device) << i;
    EXPECT_EQ(a.ops[i].start_s, b.ops[i].start_s) << i;
    EXPECT_EQ(a.ops[i].end_s, b.ops[i].end_s) << i;
  }
  ASSERT_EQ(a.transfers.size(), b.transfers.size());
  for (size_t i = 0; i < a.transfers.size(); ++i) {
    EXPECT_EQ(a.transfers[i].tensor, b.transfers[i].tensor) << i;
    EXPECT_EQ(a.transfers[i].from, b.transfers[i].from) << i;
    EXPECT_EQ(a.transfers[i].to, b.transfers[i].to) << i;
    EXPECT_EQ(a.transfers[i].start_s, b.transfers[i].start_s) << i;
    EXPECT_EQ(a.transfers[i].end_s, b.transfers[i].end_s) << i;
  }
  ASSERT_EQ(a.memory.size(), b.memory.size());
  for (size_t i = 0; i < a.memory.size(); ++i) {
    EXPECT_EQ(a.memory[i].device, b.memory[i].device) << i;
    EXPECT_EQ(a.memory[i].time_s, b.memory[i].time_s) << i;
    EXPECT_EQ(a.memory[i].bytes, b.memory[i].bytes) << i;
  }
}

// Random graphs: ops write one or two tensors (some of zero bytes, some
// read by nobody) and read up to four tensors of ops of lower random rank
// (repeats included), so that ids are not in topological order; times are
// whole milliseconds, so that ties are common; some ops hold parameters.
// Placed at random on the toy cluster, whose routes share the PCIe switch.
Graph random_graph(Rng& rng, int num_ops) {
  GraphBuilder b("random");
  std::vector<std::vector<TensorId>> outputs(num_ops);
  for (int i = 0; i < num_ops; ++i) {
    const OpId op = b.add_op("op" + std::to_string(i), "Op");
    const double time_s = static_cast<double>(1 + rng.below(4)) * kMs;
    b.mutable_op(op).measured_time_s = {time_s, time_s};
    if (rng.below(3) == 0) b.mutable_op(op).parameter_bytes = static_cast<int64_t>(rng.below(1000));
    const int num_outputs = 1 + static_cast<int>(rng.below(2));
    for (int k = 0; k < num_outputs; ++k) {
      const int64_t bytes = rng.below(5) == 0 ? 0 : static_cast<int64_t>(1 + rng.below(2'000'000));
      outputs[op].push_back(b.add_output(op, "op" + std::to_string(i) + ":" + std::to_string(k), {}, DType::kFloat32, bytes));
    }
  }
  // A random rank per op; an op reads only tensors of ops of lower rank.
  std::vector<OpId> by_rank(num_ops);
  for (int i = 0; i < num_ops; ++i) by_rank[i] = i;
  for (int i = num_ops - 1; i > 0; --i) std::swap(by_rank[i], by_rank[rng.below(static_cast<uint64_t>(i) + 1)]);
  for (int rank = 1; rank < num_ops; ++rank) {
    const int num_inputs = static_cast<int>(rng.below(5));
    for (int k = 0; k < num_inputs; ++k) {
      const std::vector<TensorId>& from = outputs[by_rank[rng.below(static_cast<uint64_t>(rank))]];
      b.add_input(by_rank[rank], from[rng.below(from.size())]);
    }
  }
  return std::move(b).build().value();
}

TEST(Simulator, AgreesBitForBitWithAPlainImplementationOfTheModel) {
  Rng rng(2017);
  for (int trial = 0; trial < 40; ++trial) {
    Graph graph = random_graph(rng, 5 + static_cast<int>(rng.below(120)));
    // Tight memory on some trials, so that some placements are OOM.
    Placed s(std::move(graph), trial % 4 == 0 ? 4'000'000 : int64_t{1} << 30);
    for (int run = 0; run < 3; ++run) {  // one simulator, reused
      Placement p;
      const int spread = 1 + static_cast<int>(rng.below(3));  // 1: all on the CPU
      for (OpId op = 0; op < s.graph.num_ops(); ++op) p.device_of_op.push_back(static_cast<DeviceId>(rng.below(spread)));
      SimOptions record;
      record.record_timeline = true;
      ASSERT_TRUE(s.sim.run(p, record).ok());
      SCOPED_TRACE("trial " + std::to_string(trial) + ", run " + std::to_string(run));
      expect_same_results(s.sim.result(), reference_run(s.problem, p));
      // Without the timeline, the same numbers.
      const SimResult timed = s.sim.result();
      ASSERT_TRUE(s.sim.run(p).ok());
      EXPECT_EQ(s.sim.result().step_time_s, timed.step_time_s);
      EXPECT_EQ(s.sim.result().devices[1].peak_memory_bytes, timed.devices[1].peak_memory_bytes);
    }
  }
}

}  // namespace
}  // namespace devplace
