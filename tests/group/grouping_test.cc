// Grouping: co-location groups kept, the paper's single-consumer merge, its cap.
#include <gtest/gtest.h>

#include "../test_clusters.h"
#include "cost/cost_model.h"
#include "graph/builder.h"
#include "graph/training_step.h"
#include "group/grouping.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

struct Fixture {
  explicit Fixture(Graph graph) : g(std::move(graph)), c(testing::toy_cluster()), cost(make_default_cost_model()),
                                  p(Problem::create(g, c, *cost).value()) {}
  Graph g;
  Cluster c;
  std::unique_ptr<CostModel> cost;
  Problem p;
};

// input -> a -> b -> c, plus a -> d (a has two consumers).
Graph fork_chain() {
  GraphBuilder b("fork_chain");
  const OpId in = b.add_op("input", "Input");
  b.mutable_op(in).kernel_mask = uint8_t{1} << static_cast<int>(DeviceKind::kCpu);
  TensorId prev = b.add_output(in, "x", {1024}, DType::kFloat32);
  const OpId a = b.add_op("a", "MatMul");
  b.add_input(a, prev);
  const TensorId at = b.add_output(a, "a:0", {1024}, DType::kFloat32);
  prev = at;
  for (const char* name : {"b", "c"}) {
    const OpId op = b.add_op(name, "MatMul");
    b.add_input(op, prev);
    prev = b.add_output(op, std::string(name) + ":0", {1024}, DType::kFloat32);
  }
  const OpId d = b.add_op("d", "MatMul");
  b.add_input(d, at);
  b.add_output(d, "d:0", {1024}, DType::kFloat32);
  for (int i = 1; i < b.num_ops(); ++i) b.mutable_op(i).flops = 1e9;
  return std::move(b).build().value();
}

TEST(Grouping, ColocationKeepsEveryOpAlone) {
  Fixture f(fork_chain());
  const Grouping gr = Grouping::create(f.p, {GroupingKind::kColocation});
  EXPECT_EQ(gr.num_groups(), 5);
}

TEST(Grouping, PaperMergesSingleConsumerChainsOnly) {
  Fixture f(fork_chain());
  const Grouping gr = Grouping::create(f.p, {GroupingKind::kPaper, /*max_group_share=*/1.0});
  auto group = [&](const char* name) { return gr.group_of(*f.g.find_op(name)); };
  EXPECT_EQ(group("b"), group("c"));       // b feeds only c
  EXPECT_NE(group("a"), group("b"));       // a feeds b and d
  EXPECT_NE(group("a"), group("d"));
  EXPECT_NE(group("input"), group("a"));   // the CPU-only input does not drag a to the CPU
  EXPECT_EQ(gr.num_groups(), 4);
  EXPECT_EQ(gr.allowed_devices(group("input")), DeviceMask{1});
  EXPECT_EQ(gr.allowed_devices(group("b")), DeviceMask{7});
}

TEST(Grouping, CapStopsMergesAboveTheShare) {
  // Each MatMul is a quarter of the work: a cap of 0.3 forbids merging b and c.
  Fixture f(fork_chain());
  const Grouping gr = Grouping::create(f.p, {GroupingKind::kPaper, /*max_group_share=*/0.3});
  EXPECT_EQ(gr.num_groups(), 5);
}

TEST(Grouping, BackwardOpsFollowTheirForwardOp) {
  Graph g = build_zoo_model("rnnlm").value();
  ASSERT_TRUE(g.has_backward());
  Fixture f(std::move(g));
  const Grouping gr = Grouping::create(f.p);
  EXPECT_LT(gr.num_groups(), f.g.num_groups());
  for (OpId op = 0; op < f.g.num_ops(); ++op) {
    if (f.g.op(op).forward_op != kNoId) {
      EXPECT_EQ(gr.group_of(op), gr.group_of(f.g.op(op).forward_op)) << f.g.op(op).name;
    }
  }
  // Groups are numbered in topological order of their first op.
  for (int32_t grp = 1; grp < gr.num_groups(); ++grp) {
    EXPECT_LT(f.g.topo_index(gr.ops(grp - 1).front()), f.g.topo_index(gr.ops(grp).front()));
  }
}

TEST(Grouping, ParsesItsKinds) {
  EXPECT_EQ(parse_grouping_kind("paper").value(), GroupingKind::kPaper);
  EXPECT_EQ(parse_grouping_kind("colocation").value(), GroupingKind::kColocation);
  EXPECT_EQ(parse_grouping_kind("fine").error().message(), "unknown grouping 'fine' (known: paper, colocation)");
}

}  // namespace
}  // namespace devplace
