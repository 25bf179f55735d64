// Problem: cost tables, pins, kernels and co-location feasibility.
#include "sim/problem.h"

#include <gtest/gtest.h>

#include "../test_clusters.h"
#include "cost/roofline_cost_model.h"
#include "graph/builder.h"
#include "sim/placement.h"

namespace devplace {
namespace {

TEST(Problem, RooflineTimesTakeTheSlowerOfComputeAndMemory) {
  GraphBuilder b("g");
  const OpId mm = b.add_op("mm", "MatMul");
  b.mutable_op(mm).flops = 6.5e9;                   // 6.5e9 / (1e12 * 0.65) = 10 ms compute on a GPU
  b.add_output(mm, "mm:0", {}, DType::kFloat32, 7'000'000);  // 7e6 / (1e11 * 0.7) = 0.1 ms memory
  const OpId add = b.add_op("add", "Add");
  b.mutable_op(add).flops = 1;
  b.add_input(add, 0);
  b.add_output(add, "add:0", {}, DType::kFloat32, 7'000'000);  // reads 7e6 + writes 7e6: 0.2 ms
  Graph g = std::move(b).build().value();
  Cluster c = testing::toy_cluster();
  RooflineCostModel roofline;
  Problem p = Problem::create(g, c, roofline).value();
  EXPECT_DOUBLE_EQ(p.op_time_s(mm, 1), 6.5e9 / (1e12 * 0.65));
  EXPECT_DOUBLE_EQ(p.op_time_s(mm, 0), 6.5e9 / (1e12 * 0.5));  // CPU: half of peak for matmuls
  EXPECT_DOUBLE_EQ(p.op_time_s(add, 1), 14e6 / (1e11 * 0.7));
  // Transfers: alpha-beta along the route.
  EXPECT_DOUBLE_EQ(p.transfer_time_s(1'000'000, 0, 1), 1e-3 + 1e-3);
  EXPECT_DOUBLE_EQ(p.transfer_time_s(1'000'000, 1, 1), 0);
}

TEST(Problem, GroupsMayUseOnlyDevicesEveryMemberCanRun) {
  GraphBuilder b("g");
  const OpId a = b.add_op("a", "Op");
  const OpId c = b.add_op("c", "Op");
  b.mutable_op(a).colocation_group = "g";
  b.mutable_op(c).colocation_group = "g";
  b.mutable_op(c).kernel_mask = 1u << static_cast<int>(DeviceKind::kGpu);
  const OpId pinned = b.add_op("pinned", "Op");
  b.mutable_op(pinned).pinned_device = "/gpu:1";
  Graph g = std::move(b).build().value();
  Cluster cl = testing::toy_cluster();
  RooflineCostModel roofline;
  Problem p = Problem::create(g, cl, roofline).value();
  EXPECT_EQ(p.allowed_devices(g.group_of(a)), DeviceMask{0b110});
  EXPECT_EQ(p.allowed_devices(g.group_of(pinned)), DeviceMask{0b100});
  EXPECT_EQ(p.pinned_device(pinned), 2);
  EXPECT_EQ(p.op_time_s(c, 0), Problem::kNoKernel);

  Placement bad;
  bad.device_of_op = {1, 2, 2};
  EXPECT_EQ(check_placement(p, bad).error().message(),
            "op 'c': placed on '/gpu:1', but its co-location group 'g' is on '/gpu:0'");
  bad.device_of_op = {1, 1, 1};
  EXPECT_EQ(check_placement(p, bad).error().message(), "op 'pinned': placed on '/gpu:0', but it is pinned to '/gpu:1'");
  bad.device_of_op = {0, 0, 2};
  EXPECT_EQ(check_placement(p, bad).error().message(), "op 'c': placed on '/cpu:0', but it has no cpu kernel");
  bad.device_of_op = {1, 1, 2};
  EXPECT_TRUE(check_placement(p, bad).ok());
}

TEST(Problem, RejectsImpossibleConstraints) {
  Cluster cl = testing::toy_cluster();
  RooflineCostModel roofline;
  {
    GraphBuilder b("g");
    b.mutable_op(b.add_op("a", "Op")).pinned_device = "/tpu:0";
    Graph g = std::move(b).build().value();
    EXPECT_EQ(Problem::create(g, cl, roofline).error().message(), "op 'a': pinned_device '/tpu:0' names no device of cluster 'toy'");
  }
  {
    GraphBuilder b("g");
    const OpId a = b.add_op("a", "Op");
    const OpId c = b.add_op("c", "Op");
    b.mutable_op(a).colocation_group = "g";
    b.mutable_op(c).colocation_group = "g";
    b.mutable_op(a).kernel_mask = 1u << static_cast<int>(DeviceKind::kCpu);
    b.mutable_op(c).kernel_mask = 1u << static_cast<int>(DeviceKind::kGpu);
    Graph g = std::move(b).build().value();
    EXPECT_EQ(Problem::create(g, cl, roofline).error().message(),
              "co-location group 'g': no device can run all its ops (op 'c' rules out the devices the others may use)");
  }
}

}  // namespace
}  // namespace devplace
