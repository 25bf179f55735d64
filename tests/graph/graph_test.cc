// GraphBuilder, validation and topological order.
#include "graph/graph.h"

#include <gtest/gtest.h>

#include "graph/builder.h"

namespace devplace {
namespace {

TEST(GraphBuilder, BuildsConsumersEdgesAndGroups) {
  GraphBuilder b("g");
  const OpId x = b.add_op("x", "Input");
  const TensorId xt = b.add_output(x, "x:0", {2, 3}, DType::kFloat32);
  const OpId y = b.add_op("y", "Add");
  b.add_input(y, xt);
  b.add_input(y, xt);  // read twice: still one consumer, two inputs
  b.mutable_op(y).colocation_group = "grp";
  const OpId z = b.add_op("z", "Relu");
  b.mutable_op(z).colocation_group = "grp";
  b.add_input(z, xt);
  Graph g = std::move(b).build().value();
  EXPECT_EQ(g.num_ops(), 3);
  EXPECT_EQ(g.tensor(xt).bytes, 24);  // 2 * 3 * 4
  EXPECT_EQ(g.tensor(xt).consumers, (std::vector<OpId>{y, z}));
  EXPECT_EQ(g.num_edges(), 2);
  EXPECT_EQ(g.num_groups(), 2);
  EXPECT_EQ(g.group_of(y), g.group_of(z));
  EXPECT_EQ(g.group_name(g.group_of(y)), "grp");
  EXPECT_EQ(g.group_name(g.group_of(x)), "x");
  EXPECT_EQ(g.find_op("z"), std::optional<OpId>(z));
  EXPECT_FALSE(g.find_op("nope").has_value());
}

TEST(GraphBuilder, TopologicalOrderPutsProducersFirst) {
  GraphBuilder b("g");
  // Ids out of dependency order: op 0 reads op 2, op 2 reads op 1.
  const OpId a = b.add_op("a", "Op");
  const OpId c = b.add_op("c", "Op");
  const OpId m = b.add_op("m", "Op");
  const TensorId ct = b.add_output(c, "c:0", {}, DType::kFloat32);
  const TensorId mt = b.add_output(m, "m:0", {}, DType::kFloat32);
  b.add_input(m, ct);
  b.add_input(a, mt);
  Graph g = std::move(b).build().value();
  EXPECT_EQ(g.topo_order(), (std::vector<OpId>{c, m, a}));
  EXPECT_EQ(g.topo_index(a), 2);
}

TEST(GraphValidation, ReportsACycleWithItsOps) {
  GraphBuilder b("cyc");
  const OpId a = b.add_op("a", "Op");
  const OpId c = b.add_op("b", "Op");
  const TensorId at = b.add_output(a, "a:0", {}, DType::kFloat32);
  const TensorId bt = b.add_output(c, "b:0", {}, DType::kFloat32);
  b.add_input(a, bt);
  b.add_input(c, at);
  Result<Graph> g = std::move(b).build();
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message(), "cycle: 'a' -> 'b' -> 'a'");
}

TEST(GraphValidation, RejectsNegativeCostsDanglingEdgesAndDuplicates) {
  {
    GraphBuilder b("neg");
    b.mutable_op(b.add_op("a", "Op")).flops = -1;
    Result<Graph> g = std::move(b).build();
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(g.error().message(), "op 'a' (#0): flops: expected a non-negative number, got -1");
  }
  {
    GraphBuilder b("dangling");
    b.add_input(b.add_op("a", "Op"), 7);
    Result<Graph> g = std::move(b).build();
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(g.error().message(), "op 'a' (#0): inputs[0]: dangling edge to tensor #7");
  }
  {
    GraphBuilder b("dup");
    b.add_op("a", "Op");
    b.add_op("a", "Op");
    Result<Graph> g = std::move(b).build();
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(g.error().message(), "op 'a' (#1): name: duplicate op name");
  }
  {
    // Names go into JSON, which must be UTF-8; a graph's own name is a
    // label, and is mended instead.
    GraphBuilder b("bad\xfe");
    b.add_op("a\xff", "Op");
    EXPECT_EQ(std::move(b).build().error().message(), "op 'a\xff' (#0): name: not valid UTF-8");
    GraphBuilder t("types");
    t.add_op("a", "Conv\xc3");
    EXPECT_EQ(std::move(t).build().error().message(), "op 'a' (#0): type: not valid UTF-8");
    GraphBuilder n("label\xfe");
    n.add_op("a", "Op");
    EXPECT_EQ(std::move(n).build().value().name(), "label\xef\xbf\xbd");
  }
  {
    GraphBuilder b("params");
    b.mutable_op(b.add_op("a", "Op")).parameter_bytes = -5;
    EXPECT_FALSE(std::move(b).build().ok());
  }
  {
    GraphBuilder b("nokernel");
    b.mutable_op(b.add_op("a", "Op")).kernel_mask = 0;
    EXPECT_FALSE(std::move(b).build().ok());
  }
  {
    GraphBuilder b("empty");
    EXPECT_EQ(std::move(b).build().error().message(), "graph has no ops");
  }
}

TEST(Graph, TotalsAndDTypes) {
  GraphBuilder b("t");
  const OpId a = b.add_op("a", "MatMul");
  b.mutable_op(a).flops = 10;
  b.mutable_op(a).parameter_bytes = 8;
  const OpId c = b.add_op("c", "MatMul");
  b.mutable_op(c).flops = 5;
  b.add_output(c, "c:0", {3}, DType::kFloat16);
  Graph g = std::move(b).build().value();
  EXPECT_DOUBLE_EQ(g.total_flops(), 15);
  EXPECT_EQ(g.total_parameter_bytes(), 8);
  EXPECT_EQ(g.tensor(0).bytes, 6);
  EXPECT_FALSE(g.has_backward());
  EXPECT_EQ(parse_dtype("bfloat16"), std::optional<DType>(DType::kBFloat16));
  EXPECT_FALSE(parse_dtype("float8").has_value());
  EXPECT_EQ(parse_device_kind("gpu"), std::optional<DeviceKind>(DeviceKind::kGpu));
}

}  // namespace
}  // namespace devplace

namespace devplace {
namespace {

// A size past int64 is -1, whether the element count or only the bytes overflow.
TEST(Graph, DenseTensorBytesSaysWhenTheSizeOverflows) {
  EXPECT_EQ(dense_tensor_bytes({2, 3}, DType::kFloat32), 24);
  EXPECT_EQ(dense_tensor_bytes({}, DType::kFloat64), 8);
  EXPECT_EQ(dense_tensor_bytes({2, -1}, DType::kFloat32), -1);
  EXPECT_EQ(dense_tensor_bytes({int64_t{1} << 62, 4}, DType::kInt8), -1);           // the count
  EXPECT_EQ(dense_tensor_bytes({int64_t{1} << 62}, DType::kFloat32), -1);           // the bytes only (fuzz_native_binary)
  EXPECT_EQ(dense_tensor_bytes({int64_t{1} << 61}, DType::kFloat32), -1);             // 2^63 bytes
  EXPECT_EQ(dense_tensor_bytes({int64_t{1} << 60}, DType::kFloat32), int64_t{1} << 62);  // fits
}

}  // namespace
}  // namespace devplace
