// scotch, mincut and metis: the group graph they partition, balance by
// device speed, cuts, the CPU rule of mincut, memory relief, determinism,
// and runs on the zoo's models.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

#include "../test_clusters.h"
#include "cluster/cluster_json.h"
#include "cost/cost_model.h"
#include "graph/builder.h"
#include "place/data_clusters.h"
#include "place/partition_graph.h"
#include "place/run_placer.h"
#include "sim/simulator.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

const std::vector<std::string> kPartitionPlacers = {"scotch", "mincut", "metis"};

// An optional CPU and GPUs of the given peak FLOP/s, all behind one switch.
Cluster star_cluster(const std::vector<double>& gpu_flops, bool with_cpu) {
  std::vector<Device> devices;
  std::vector<Link> links;
  auto add = [&](const std::string& name, DeviceKind kind, double flops) {
    Device d;
    d.name = name;
    d.kind = kind;
    d.peak_flops = flops;
    d.memory_bandwidth_bytes_per_s = 1e11;
    d.memory_bytes = int64_t{16} << 30;
    devices.push_back(d);
    links.push_back({name, "switch", 1e10, 1e-6});
  };
  if (with_cpu) add("/cpu:0", DeviceKind::kCpu, 1e12);
  for (size_t i = 0; i < gpu_flops.size(); ++i) add("/gpu:" + std::to_string(i), DeviceKind::kGpu, gpu_flops[i]);
  return Cluster::create("star", "test cluster", std::move(devices), {"switch"}, std::move(links)).value();
}

// `num_chains` chains of `length` MatMuls (1 GFLOP each, `bytes` between
// neighbours), fed by one input and read by one loss.
Graph chains_graph(int num_chains, int length, int64_t bytes = 4096) {
  GraphBuilder b("chains");
  const OpId src = b.add_op("src", "Input");
  const TensorId x = b.add_output(src, "src:0", {}, DType::kFloat32, 1024);
  std::vector<TensorId> ends;
  for (int c = 0; c < num_chains; ++c) {
    TensorId prev = x;
    for (int i = 0; i < length; ++i) {
      const std::string name = "c" + std::to_string(c) + "/op" + std::to_string(i);
      const OpId op = b.add_op(name, "MatMul");
      b.mutable_op(op).flops = 1e9;
      b.add_input(op, prev);
      prev = b.add_output(op, name + ":0", {}, DType::kFloat32, bytes);
    }
    ends.push_back(prev);
  }
  const OpId sink = b.add_op("sink", "Loss");
  for (TensorId t : ends) b.add_input(sink, t);
  b.add_output(sink, "sink:0", {}, DType::kFloat32, 4);
  return std::move(b).build().value();
}

// Two clusters of 8 MatMuls ("a", "b"), each op reading the 1 MiB outputs of
// the two before it; a7 sends 4 bytes ("a7:thin") to b0, the only link.
// With `pin`, that op is pinned to the CPU.
Graph two_clusters_graph(const std::string& pin = "") {
  GraphBuilder b("two_clusters");
  TensorId thin = kNoId;
  for (const char* side : {"a", "b"}) {
    std::vector<TensorId> outs;
    for (int i = 0; i < 8; ++i) {
      const std::string name = side + std::to_string(i);
      const OpId op = b.add_op(name, "MatMul");
      b.mutable_op(op).flops = 1e9;
      if (name == pin) b.mutable_op(op).pinned_device = "/cpu:0";
      if (i >= 1) b.add_input(op, outs[i - 1]);
      if (i >= 2) b.add_input(op, outs[i - 2]);
      if (thin != kNoId && i == 0) b.add_input(op, thin);
      outs.push_back(b.add_output(op, name + ":0", {}, DType::kFloat32, 1 << 20));
      if (thin == kNoId && i == 7) thin = b.add_output(op, name + ":thin", {}, DType::kFloat32, 4);
    }
  }
  return std::move(b).build().value();
}

Cluster preset(const std::string& name) {
  setenv("DEVPLACE_CLUSTERS", DEVPLACE_CLUSTERS_DIR, 1);
  return load_cluster(name).value();
}

// A graph on a cluster, placed as run_placer places it.
struct Placed {
  Placed(Graph g, Cluster c, GroupingKind kind = GroupingKind::kColocation)
      : graph(std::move(g)), cluster(std::move(c)), cost(make_default_cost_model()),
        problem(Problem::create(graph, cluster, *cost).value()), sim(problem) {
    options.grouping.kind = kind;
  }
  Result<PlacerRun> run(const std::string& method, uint64_t seed = 1) {
    options.seed = seed;
    return run_placer(method, problem, sim, options);
  }
  Placement place(const std::string& method, uint64_t seed = 1) {
    Result<PlacerRun> r = run(method, seed);
    if (!r.ok()) {
      ADD_FAILURE() << method << ": " << r.error().message();
      return Placement{std::vector<DeviceId>(graph.num_ops(), 0)};
    }
    EXPECT_TRUE(check_placement(problem, r.value().placement).ok()) << method;
    return r.value().placement;
  }
  // Share of the graph's FLOPs on `device`.
  double flops_share(const Placement& p, DeviceId device) const {
    double on = 0;
    for (OpId id = 0; id < graph.num_ops(); ++id) {
      if (p.device_of_op[id] == device) on += graph.op(id).flops;
    }
    return on / graph.total_flops();
  }
  // Names of the tensors that some consumer reads on another device than the producer's.
  std::set<std::string> cut_tensors(const Placement& p) const {
    std::set<std::string> out;
    for (const Tensor& t : graph.tensors()) {
      for (OpId c : t.consumers) {
        if (p.device_of_op[c] != p.device_of_op[t.producer]) out.insert(t.name);
      }
    }
    return out;
  }
  DeviceId device_of(const Placement& p, const std::string& op) const { return p.device_of_op[*graph.find_op(op)]; }

  Graph graph;
  Cluster cluster;
  std::unique_ptr<CostModel> cost;
  Problem problem;
  Simulator sim;
  PlacerRunOptions options;
};

TEST(PartitionGraph, MergesDuplicateEdgesDropsSelfLoopsAndIsSymmetric) {
  // a writes t1 (10 KiB) and t2 (20 KiB); b reads both, c reads t1; d shares
  // a's co-location group and reads t1 (no edge: same vertex).
  GraphBuilder b("g");
  const OpId a = b.add_op("a", "MatMul");
  const TensorId t1 = b.add_output(a, "t1", {}, DType::kFloat32, 10 * 1024);
  const TensorId t2 = b.add_output(a, "t2", {}, DType::kFloat32, 20 * 1024);
  b.mutable_op(a).colocation_group = "ad";
  const OpId bb = b.add_op("b", "MatMul");
  b.add_input(bb, t1);
  b.add_input(bb, t2);
  const OpId c = b.add_op("c", "MatMul");
  b.add_input(c, t1);
  const OpId d = b.add_op("d", "MatMul");
  b.add_input(d, t1);
  b.mutable_op(d).colocation_group = "ad";
  Placed s(std::move(b).build().value(), testing::toy_cluster());
  const Grouping grouping = Grouping::create(s.problem, s.options.grouping);
  ASSERT_EQ(grouping.num_groups(), 3);  // {a, d}, {b}, {c}
  const PartitionGraph pg = build_partition_graph(s.problem, grouping, {0, 1, 2}).value();
  ASSERT_EQ(pg.num_vertices(), 3);
  EXPECT_EQ(pg.vertex_begin, (std::vector<int32_t>{0, 2, 3, 4}));
  EXPECT_EQ(pg.neighbors, (std::vector<int32_t>{1, 2, 0, 0}));
  EXPECT_EQ(pg.edge_weights, (std::vector<int32_t>{30, 10, 30, 10}));  // KiB: t1 + t2 = 10 + 20; t1
  for (int32_t w : pg.vertex_weights) EXPECT_GE(w, 1);
}

TEST(PartitionGraph, ScalesHugeWeightsIntoThirtyTwoBits) {
  // Two 1 PFLOP ops (about 1500 s each: 1.5e9 us) and one tiny one, joined by 1 TB tensors.
  GraphBuilder b("huge");
  const OpId x = b.add_op("x", "MatMul");
  b.mutable_op(x).flops = 1e15;
  const TensorId xt = b.add_output(x, "x:0", {}, DType::kFloat32, int64_t{1} << 40);
  const OpId y = b.add_op("y", "MatMul");
  b.mutable_op(y).flops = 1e15;
  b.add_input(y, xt);
  const TensorId yt = b.add_output(y, "y:0", {}, DType::kFloat32, int64_t{1} << 40);
  const OpId z = b.add_op("z", "Relu");
  b.add_input(z, yt);
  b.add_output(z, "z:0", {}, DType::kFloat32, 4);
  Placed s(std::move(b).build().value(), testing::toy_cluster());
  const Grouping grouping = Grouping::create(s.problem, s.options.grouping);
  const PartitionGraph pg = build_partition_graph(s.problem, grouping, {0, 1, 2}).value();
  int64_t vertex_total = 0, arc_total = 0;
  for (int32_t w : pg.vertex_weights) vertex_total += w;
  for (int32_t w : pg.edge_weights) arc_total += w;
  EXPECT_LE(vertex_total, kMaxTotalWeight);
  EXPECT_LE(arc_total, 2 * kMaxTotalWeight);  // each edge twice
  EXPECT_EQ(pg.vertex_weights[0], pg.vertex_weights[1]);
  EXPECT_GT(pg.vertex_weights[0], kMaxTotalWeight / 3);
  EXPECT_GE(pg.vertex_weights[2], 1);
  for (int32_t w : pg.edge_weights) EXPECT_GE(w, 1);
}

TEST(PartitionGraph, LeavesOutGroupsNoListedDeviceRuns) {
  GraphBuilder b("g");
  const OpId in = b.add_op("in", "Input");
  const TensorId t = b.add_output(in, "in:0", {}, DType::kFloat32, 4096);
  b.mutable_op(in).kernel_mask = 1u << static_cast<int>(DeviceKind::kCpu);
  const OpId m = b.add_op("m", "MatMul");
  b.add_input(m, t);
  Placed s(std::move(b).build().value(), testing::toy_cluster());
  const Grouping grouping = Grouping::create(s.problem, s.options.grouping);
  const PartitionGraph pg = build_partition_graph(s.problem, grouping, {1, 2}).value();
  ASSERT_EQ(pg.num_vertices(), 1);
  EXPECT_EQ(pg.vertex_of_group, (std::vector<int32_t>{kNoId, 0}));
  EXPECT_EQ(pg.num_arcs(), 0);
}

TEST(PartitionPlacers, MincutAndMetisBalanceEqualChainsOverIdenticalGpus) {
  Placed toy(chains_graph(16, 8), testing::toy_cluster());
  const Placement mincut = toy.place("mincut");
  EXPECT_EQ(toy.flops_share(mincut, 0), 0.0);
  EXPECT_NEAR(toy.flops_share(mincut, 1), 0.5, 0.05);
  EXPECT_NEAR(toy.flops_share(mincut, 2), 0.5, 0.05);

  for (int num_gpus : {2, 4}) {
    Placed gpus(chains_graph(16, 8), star_cluster(std::vector<double>(num_gpus, 1e12), false));
    const Placement metis = gpus.place("metis");
    for (DeviceId d = 0; d < num_gpus; ++d) EXPECT_NEAR(gpus.flops_share(metis, d), 1.0 / num_gpus, 0.05) << d;
  }
}

TEST(PartitionPlacers, ScotchAndMetisGiveTheFasterGpuProportionallyMore) {
  // /gpu:0 has twice the peak of /gpu:1 and the MatMuls are compute-bound: 2/3 of the work.
  Placed s(chains_graph(16, 8), star_cluster({2e12, 1e12}, false));
  for (const char* method : {"scotch", "metis"}) {
    const Placement p = s.place(method);
    EXPECT_NEAR(s.flops_share(p, 0), 2.0 / 3, 0.06) << method;
    EXPECT_NEAR(s.flops_share(p, 1), 1.0 / 3, 0.06) << method;
  }
}

TEST(PartitionPlacers, CutOnlyTheThinEdgeBetweenTwoHeavyClusters) {
  // mincut on the toy cluster (its two GPUs); both on two GPUs alone (metis
  // would make the toy's CPU a third part).
  Placed toy(two_clusters_graph(), testing::toy_cluster());
  Placed pair(two_clusters_graph(), star_cluster({1e12, 1e12}, false));
  for (auto [s, method] : {std::pair{&toy, "mincut"}, std::pair{&pair, "mincut"}, std::pair{&pair, "metis"}}) {
    const Placement p = s->place(method);
    EXPECT_EQ(s->cut_tensors(p), (std::set<std::string>{"a7:thin"})) << method;
    EXPECT_NE(s->device_of(p, "a0"), s->device_of(p, "b0")) << method;
  }
}

TEST(PartitionPlacers, ScotchKeepsHeavyTrafficBetweenCloseDevices) {
  // GPUs in a line 0 = 1 - 2 = 3: "=" at 100 GB/s, "-" at 1 GB/s. Four
  // clusters of 8 MatMuls (1 MiB inside each); p_i sends 64 KiB to q_i and
  // r_i to s_i, p0 and q0 send 4 bytes to r0 and s0. Each cluster gets a GPU
  // (splitting one cuts more), and p, q share a fast link, as do r, s.
  GraphBuilder b("four_clusters");
  std::map<std::string, std::vector<OpId>> ops;
  std::map<std::string, std::vector<TensorId>> outs;
  for (const char* side : {"p", "q", "r", "s"}) {
    for (int i = 0; i < 8; ++i) {
      const std::string name = side + std::to_string(i);
      const OpId op = b.add_op(name, "MatMul");
      b.mutable_op(op).flops = 1e9;
      if (i >= 1) b.add_input(op, outs[side][i - 1]);
      if (i >= 2) b.add_input(op, outs[side][i - 2]);
      ops[side].push_back(op);
      outs[side].push_back(b.add_output(op, name + ":0", {}, DType::kFloat32, 1 << 20));
    }
  }
  auto link = [&](const std::string& from, int i, const std::string& to, int64_t bytes) {
    const TensorId t = b.add_output(ops[from][i], from + std::to_string(i) + ":to_" + to, {}, DType::kFloat32, bytes);
    b.add_input(ops[to][i], t);
  };
  for (int i = 0; i < 8; ++i) {
    link("p", i, "q", 64 * 1024);
    link("r", i, "s", 64 * 1024);
  }
  link("p", 0, "r", 4);
  link("q", 0, "s", 4);
  std::vector<Device> devices;
  for (int i = 0; i < 4; ++i) {
    Device d;
    d.name = "/gpu:" + std::to_string(i);
    d.kind = DeviceKind::kGpu;
    d.peak_flops = 1e12;
    d.memory_bandwidth_bytes_per_s = 1e11;
    d.memory_bytes = int64_t{16} << 30;
    devices.push_back(d);
  }
  std::vector<Link> links = {
      {"/gpu:0", "/gpu:1", 1e11, 1e-6}, {"/gpu:1", "/gpu:2", 1e9, 1e-6}, {"/gpu:2", "/gpu:3", 1e11, 1e-6}};
  Cluster line = Cluster::create("line", "test cluster", std::move(devices), {}, std::move(links)).value();
  Placed s(std::move(b).build().value(), std::move(line));
  const Placement p = s.place("scotch");
  auto pair_of = [&](const char* op) { return s.device_of(p, op) / 2; };  // {0, 1} or {2, 3}
  std::set<DeviceId> used;
  for (const char* op : {"p0", "q0", "r0", "s0"}) used.insert(s.device_of(p, op));
  EXPECT_EQ(used.size(), 4u);
  EXPECT_EQ(pair_of("p0"), pair_of("q0"));
  EXPECT_EQ(pair_of("r0"), pair_of("s0"));
}

TEST(PartitionPlacers, MincutPutsOnlyCpuOnlyGroupsOnTheCpu) {
  GraphBuilder b("g");
  const OpId in = b.add_op("in", "Input");
  const TensorId t = b.add_output(in, "in:0", {}, DType::kFloat32, 4096);
  b.mutable_op(in).kernel_mask = 1u << static_cast<int>(DeviceKind::kCpu);
  for (int i = 0; i < 8; ++i) {
    const OpId m = b.add_op("m" + std::to_string(i), "MatMul");
    b.mutable_op(m).flops = 1e9;
    b.add_input(m, t);
  }
  Placed small(std::move(b).build().value(), testing::toy_cluster());
  const Placement p = small.place("mincut");
  EXPECT_EQ(small.device_of(p, "in"), 0);
  for (int i = 0; i < 8; ++i) EXPECT_NE(small.device_of(p, "m" + std::to_string(i)), 0);

  Placed rnnlm(build_zoo_model("rnnlm:steps=4").value(), preset("k80x4"), GroupingKind::kPaper);
  const Placement q = rnnlm.place("mincut");
  const Grouping grouping = Grouping::create(rnnlm.problem, rnnlm.options.grouping);
  const Cluster& c = rnnlm.cluster;
  int cpu_only = 0;
  for (int32_t grp = 0; grp < grouping.num_groups(); ++grp) {
    bool gpu_allowed = false;
    for (DeviceId d = 0; d < c.num_devices(); ++d) {
      gpu_allowed |= c.device(d).kind == DeviceKind::kGpu && grouping.allows(grp, d);
    }
    cpu_only += gpu_allowed ? 0 : 1;
    const DeviceId d = q.device_of_op[grouping.ops(grp).front()];
    EXPECT_EQ(c.device(d).kind == DeviceKind::kCpu, !gpu_allowed) << rnnlm.graph.op(grouping.ops(grp).front()).name;
  }
  EXPECT_GT(cpu_only, 0);  // the input ids
}

TEST(PartitionPlacers, SameSeedSamePlacement) {
  Placed s(build_zoo_model("layered:layers=8,width=4").value(), testing::toy_cluster(), GroupingKind::kPaper);
  for (const std::string& method : kPartitionPlacers) {
    for (uint64_t seed : {1, 2, 3}) EXPECT_EQ(s.place(method, seed), s.place(method, seed)) << method << " " << seed;
  }
}

TEST(PartitionPlacers, TinyGraphsAndSingleDevices) {
  GraphBuilder b("one");
  const OpId a = b.add_op("a", "MatMul");
  b.mutable_op(a).flops = 1e9;
  b.add_output(a, "a:0", {}, DType::kFloat32, 16);
  Placed one(std::move(b).build().value(), testing::toy_cluster());
  Placed cpu_only(chains_graph(2, 2), star_cluster({}, true));
  Placed unlinked(chains_graph(0, 0), star_cluster({1e12, 1e12}, true));  // src and sink, no chain between
  for (const std::string& method : kPartitionPlacers) {
    EXPECT_NE(one.place(method).device_of_op[0], 0) << method;  // a GPU runs the MatMul faster
    for (DeviceId d : cpu_only.place(method).device_of_op) EXPECT_EQ(d, 0) << method;
    unlinked.place(method);
  }
}

TEST(PartitionPlacers, RelieveMemoryMovesGroupsToDevicesWithRoom) {
  // Four 400 MB parameter holders, all mapped to /gpu:0 (1 GiB): two must move,
  // to /gpu:1 (same kind) rather than the CPU.
  GraphBuilder b("params");
  for (int i = 0; i < 4; ++i) {
    const OpId op = b.add_op("w" + std::to_string(i), "MatMul");
    b.mutable_op(op).parameter_bytes = 400'000'000;
    b.add_output(op, "w" + std::to_string(i) + ":0", {}, DType::kFloat32, 4);
  }
  Placed s(std::move(b).build().value(), testing::toy_cluster());
  const Grouping grouping = Grouping::create(s.problem, s.options.grouping);
  Rng rng(1);
  for (int64_t evaluations : {1, 0}) {  // without and with evaluating both candidates
    const PlaceContext ctx{s.problem, grouping, s.sim, Budget{0, evaluations}, rng};
    const Placement p = finish_partition(ctx, {0, 1, 2}, std::vector<DeviceId>(4, 1)).value();
    std::vector<int> on_device(3, 0);
    for (DeviceId d : p.device_of_op) ++on_device[d];
    EXPECT_EQ(on_device, (std::vector<int>{0, 2, 2})) << evaluations;
    EXPECT_FALSE(s.sim.evaluate(p).value().oom);
  }
}

class PartitionOnZoo : public ::testing::TestWithParam<const char*> {};

TEST_P(PartitionOnZoo, EveryPlacerRunsOnK80x4) {
  Placed s(build_zoo_model(GetParam()).value(), preset("k80x4"), GroupingKind::kPaper);
  for (const std::string& method : kPartitionPlacers) {
    Result<PlacerRun> r = s.run(method);
    ASSERT_TRUE(r.ok()) << method << ": " << r.error().message();
    EXPECT_TRUE(check_placement(s.problem, r.value().placement).ok()) << method;
    EXPECT_GT(r.value().evaluation.step_time_s, 0) << method;
    EXPECT_FALSE(r.value().evaluation.oom) << method;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, PartitionOnZoo, ::testing::Values("rnnlm", "nmt", "inception_v3"));

// data_clusters: the two halves of two_clusters_graph, joined by 4 bytes,
// are the two clusters, numbered in topological order; at more clusters
// than groups each group is its own; with a group pinned to the CPU, it is
// not merged with its neighbours while others can merge.
TEST(DataClusters, FollowTheHeavyEdges) {
  Placed placed(two_clusters_graph(), star_cluster({1e12, 1e12}, /*with_cpu=*/true));
  const Grouping grouping = Grouping::create(placed.problem, placed.options.grouping);
  const Graph& g = placed.graph;
  const std::vector<int32_t> two = data_clusters(placed.problem, grouping, 2).value();
  ASSERT_EQ(two.size(), static_cast<size_t>(grouping.num_groups()));
  for (int32_t grp = 0; grp < grouping.num_groups(); ++grp) {
    const std::string& name = g.op(grouping.ops(grp).front()).name;
    EXPECT_EQ(two[grp], name[0] == 'a' ? 0 : 1) << name;
  }
  const std::vector<int32_t> many = data_clusters(placed.problem, grouping, 1000).value();
  EXPECT_EQ(std::set<int32_t>(many.begin(), many.end()).size(), static_cast<size_t>(grouping.num_groups()));
  const std::vector<int32_t> one = data_clusters(placed.problem, grouping, 1).value();
  EXPECT_EQ(std::set<int32_t>(one.begin(), one.end()), std::set<int32_t>{0});
  EXPECT_FALSE(data_clusters(placed.problem, grouping, 0).ok());

  Placed with_pin(two_clusters_graph("a3"), star_cluster({1e12, 1e12}, /*with_cpu=*/true));
  const Grouping pin_grouping = Grouping::create(with_pin.problem, with_pin.options.grouping);
  const std::vector<int32_t> three = data_clusters(with_pin.problem, pin_grouping, 3).value();
  std::map<std::string, int32_t> of;
  for (int32_t grp = 0; grp < pin_grouping.num_groups(); ++grp)
    of[with_pin.graph.op(pin_grouping.ops(grp).front()).name] = three[grp];
  for (const auto& [name, cluster] : of) {
    if (name != "a3") {
      EXPECT_NE(cluster, of["a3"]) << name;
    }
  }
}

}  // namespace
}  // namespace devplace
