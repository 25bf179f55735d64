// Simulator step times, memory and traffic on 3-5 op graphs, checked by hand.
// Op times are given as measured GPU/CPU times so that the sums are exact.
#include "sim/simulator.h"

#include <gtest/gtest.h>

#include "../test_clusters.h"
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

}  // namespace
}  // namespace devplace
