// cpu, single-gpu and round-robin: where they put ops, kernels and pins honoured.
#include <gtest/gtest.h>

#include "../test_clusters.h"
#include "cost/cost_model.h"
#include "graph/builder.h"
#include "place/run_placer.h"
#include "sim/simulator.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

Placement place(const std::string& name, const Problem& p) {
  Simulator sim(p);
  PlacerRunOptions options;
  options.seed = 7;
  options.grouping.kind = GroupingKind::kColocation;
  Placement pl = run_placer(name, p, sim, options).value().placement;
  EXPECT_TRUE(check_placement(p, pl).ok()) << name;
  return pl;
}

TEST(SimplePlacers, PutOpsWhereTheirNamesSay) {
  Graph g = build_zoo_model("layered:layers=4,width=2").value();
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  for (DeviceId d : place("cpu", p).device_of_op) EXPECT_EQ(d, 0);
  for (DeviceId d : place("single-gpu", p).device_of_op) EXPECT_EQ(d, 1);
  // Round-robin deals groups over the two GPUs: both get about half.
  Placement rr = place("round-robin", p);
  int on_gpu0 = 0, on_gpu1 = 0;
  for (GroupId grp = 0; grp < g.num_groups(); ++grp) {
    const DeviceId d = rr.device_of_op[g.group_ops(grp).front()];
    EXPECT_NE(d, 0);
    (d == 1 ? on_gpu0 : on_gpu1)++;
  }
  EXPECT_LE(std::abs(on_gpu0 - on_gpu1), 1);
}

TEST(SimplePlacers, CpuOnlyOpsAndPinsWin) {
  GraphBuilder b("g");
  const OpId a = b.add_op("a", "Op");
  const TensorId at = b.add_output(a, "a:0", {4}, DType::kFloat32);
  b.mutable_op(a).kernel_mask = 1u << static_cast<int>(DeviceKind::kCpu);
  const OpId m = b.add_op("m", "Op");
  b.add_input(m, at);
  const OpId pinned = b.add_op("pinned", "Op");
  b.mutable_op(pinned).pinned_device = "/gpu:1";
  Graph g = std::move(b).build().value();
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  Placement single = place("single-gpu", p);
  EXPECT_EQ(single.device_of_op, (std::vector<DeviceId>{0, 1, 2}));
  Placement cpu = place("cpu", p);
  EXPECT_EQ(cpu.device_of_op, (std::vector<DeviceId>{0, 0, 2}));
}

TEST(SimplePlacers, UnknownNameListsTheKnownOnes) {
  Result<std::unique_ptr<Placer>> p = make_placer("hef");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(), "unknown placer 'hef' (known: cpu, single-gpu, scotch, mincut, expert, round-robin, random, metis, heft, m-topo, m-etf, m-sct, local-search, random-search, exhaustive)");
  // rl and hierarchical are added by rl/rl_library.h, which place/ does not know.
}

TEST(SimplePlacers, SameSeedSamePlacement) {
  Graph g = build_zoo_model("layered:layers=5,width=3").value();
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  for (const PlacerInfo& info : placer_registry()) {
    if (info.role == PlacerRole::kReference) continue;  // exhaustive refuses a graph this size
    if (info.role == PlacerRole::kLearned) continue;    // tests/rl covers rl
    EXPECT_EQ(place(std::string(info.name), p), place(std::string(info.name), p)) << info.name;
  }
}

}  // namespace
}  // namespace devplace
