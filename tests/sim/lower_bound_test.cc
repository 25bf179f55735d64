// The step-time lower bound: each part on a graph where it can be worked
// out by hand, and below every simulated placement.
#include <gtest/gtest.h>

#include "../test_clusters.h"
#include "cost/cost_model.h"
#include "graph/builder.h"
#include "sim/lower_bound.h"

namespace devplace {
namespace {

// `n` ops of `flops` each; chained if `chain`, else independent.
Graph ops(int n, double flops, bool chain) {
  GraphBuilder b("g");
  TensorId prev = -1;
  for (int i = 0; i < n; ++i) {
    const OpId op = b.add_op("op" + std::to_string(i), "MatMul");
    b.mutable_op(op).flops = flops;
    if (chain && prev >= 0) b.add_input(op, prev);
    prev = b.add_output(op, "t" + std::to_string(i), {}, DType::kFloat32, 4);
  }
  return std::move(b).build().value();
}

TEST(LowerBound, ChainIsItsCriticalPath) {
  Graph g = ops(4, 1e9, true);
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  const LowerBound lb = compute_lower_bound(p);
  double fastest = 0;
  for (OpId op = 0; op < 4; ++op) fastest += std::min({p.op_time_s(op, 0), p.op_time_s(op, 1), p.op_time_s(op, 2)});
  EXPECT_DOUBLE_EQ(lb.critical_path_s, fastest);
  EXPECT_DOUBLE_EQ(lb.value_s(), fastest);
}

TEST(LowerBound, IndependentOpsSpreadOverDevicesBySpeed) {
  // Six equal ops; the toy GPUs run a MatMul at 0.65 of peak and the CPU at
  // 0.5, so the fractional optimum gives each device time T with
  // 6 = T * (2 / t_gpu + 1 / t_cpu).
  Graph g = ops(6, 1e10, false);
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  const double t_cpu = p.op_time_s(0, 0), t_gpu = p.op_time_s(0, 1);
  const LowerBound lb = compute_lower_bound(p);
  EXPECT_NEAR(lb.load_s, 6.0 / (2.0 / t_gpu + 1.0 / t_cpu), 1e-3 * lb.load_s);
  EXPECT_LE(lb.load_s, 6.0 / (2.0 / t_gpu + 1.0 / t_cpu) * (1 + 1e-12));  // a bound, never above the optimum
  EXPECT_DOUBLE_EQ(lb.critical_path_s, t_gpu);
}

TEST(LowerBound, ColocatedOpsShareOneDevice) {
  GraphBuilder b("pair");
  for (const char* name : {"a", "b"}) {
    const OpId op = b.add_op(name, "MatMul");
    b.mutable_op(op).flops = 1e10;
    b.mutable_op(op).colocation_group = "both";
  }
  Graph g = std::move(b).build().value();
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  EXPECT_DOUBLE_EQ(compute_lower_bound(p).group_s, 2 * p.op_time_s(0, 1));
}

}  // namespace
}  // namespace devplace
