// Training-step expansion: backward ops, gradient sums, updates, co-location.
#include "graph/training_step.h"

#include <gtest/gtest.h>

#include "../test_graphs.h"

#include "graph/builder.h"

namespace devplace {
namespace {

// x (Input) -> fc1 (MatMul, weights) -> relu -> fc2 (MatMul, weights) -> loss,
// and fc1:0 also feeds loss directly (two consumers: its gradient is summed).
Graph small_forward() {
  GraphBuilder b("mlp");
  const OpId x = b.add_op("x", "Input");
  const TensorId xt = b.add_output(x, "x:0", {8, 16}, DType::kFloat32);
  const OpId fc1 = b.add_op("fc1", "MatMul");
  b.mutable_op(fc1).flops = 1000;
  b.mutable_op(fc1).parameter_bytes = 1024;
  b.mutable_op(fc1).measured_time_s = {-1, 0.002};
  b.mutable_op(fc1).layer = 0;
  b.add_input(fc1, xt);
  const TensorId h1 = b.add_output(fc1, "fc1:0", {8, 16}, DType::kFloat32);
  const OpId relu = b.add_op("relu", "Relu");
  b.mutable_op(relu).flops = 128;
  b.add_input(relu, h1);
  const TensorId r = b.add_output(relu, "relu:0", {8, 16}, DType::kFloat32);
  const OpId fc2 = b.add_op("fc2", "MatMul");
  b.mutable_op(fc2).flops = 2000;
  b.mutable_op(fc2).parameter_bytes = 2048;
  b.mutable_op(fc2).colocation_group = "head";
  b.add_input(fc2, r);
  const TensorId h2 = b.add_output(fc2, "fc2:0", {8, 16}, DType::kFloat32);
  const OpId loss = b.add_op("loss", "Loss");
  b.add_input(loss, h2);
  b.add_input(loss, h1);
  b.add_output(loss, "loss:0", {}, DType::kFloat32);
  return std::move(b).build().value();
}

using testing::op_named;

TEST(TrainingStep, AddsBackwardSumAndUpdateOps) {
  Graph g = expand_training_step(small_forward(), TrainingOptions{Optimizer::kAdam}).value();
  // 5 forward + 4 backward (x has no gradient) + 1 AddN (fc1:0 has two readers) + 2 updates.
  EXPECT_EQ(g.num_ops(), 12);
  EXPECT_TRUE(g.has_backward());
  EXPECT_FALSE(g.find_op("x/grad").has_value());
  EXPECT_TRUE(g.find_op("fc1:0/grad_sum").has_value());

  const Op& fc1g = op_named(g, "fc1/grad");
  EXPECT_EQ(fc1g.phase, OpPhase::kBackward);
  EXPECT_DOUBLE_EQ(fc1g.flops, 2000);               // 2x a MatMul's
  EXPECT_DOUBLE_EQ(fc1g.measured_time_s[1], 0.004);  // measured GPU time scaled alike
  EXPECT_LT(fc1g.measured_time_s[0], 0);             // no CPU measurement to scale
  EXPECT_EQ(fc1g.layer, 0);
  EXPECT_DOUBLE_EQ(op_named(g, "relu/grad").flops, 128);  // 1x for elementwise

  const Op& up1 = op_named(g, "fc1/update");
  EXPECT_EQ(up1.phase, OpPhase::kUpdate);
  EXPECT_EQ(up1.type, "ApplyAdam");
  EXPECT_EQ(up1.optimizer_state_bytes, 2048);  // Adam: two moments of 1024 bytes
  EXPECT_DOUBLE_EQ(up1.flops, 256.0 * 12);     // 1024 B / 4 = 256 elements x 12

  // Co-location: backward and update join the forward op's group.
  const OpId fc1 = *g.find_op("fc1"), fc2 = *g.find_op("fc2");
  EXPECT_EQ(g.group_of(*g.find_op("fc1/grad")), g.group_of(fc1));
  EXPECT_EQ(g.group_of(*g.find_op("fc1/update")), g.group_of(fc1));
  EXPECT_EQ(g.group_name(g.group_of(*g.find_op("fc2/update"))), "head");
  EXPECT_EQ(g.group_of(*g.find_op("fc2/grad")), g.group_of(fc2));
}

TEST(TrainingStep, BackwardReadsWhatItsTypeSaves) {
  Graph g = expand_training_step(small_forward(), TrainingOptions{}).value();
  auto input_names = [&](const std::string& op) {
    std::vector<std::string> names;
    for (TensorId t : op_named(g, op).inputs) names.push_back(g.tensor(t).name);
    return names;
  };
  // fc2/grad: gradient of fc2:0 (from loss/grad) and the saved input relu:0.
  EXPECT_EQ(input_names("fc2/grad"), (std::vector<std::string>{"loss/grad:0", "relu:0"}));
  // relu/grad saves its output; fc1/grad reads the summed gradient and x:0.
  EXPECT_EQ(input_names("relu/grad"), (std::vector<std::string>{"fc2/grad:0", "relu:0"}));
  EXPECT_EQ(input_names("fc1/grad"), (std::vector<std::string>{"fc1:0/grad_sum:0", "x:0"}));
  EXPECT_EQ(input_names("fc1/update"), (std::vector<std::string>{"fc1/grad:params"}));
  EXPECT_EQ(g.tensor(*g.find_tensor("fc1/grad:params")).bytes, 1024);
}

TEST(TrainingStep, OptimizerStateFollowsTheOptimizer) {
  EXPECT_EQ(op_named(expand_training_step(small_forward(), {Optimizer::kSgd}).value(), "fc2/update").optimizer_state_bytes, 0);
  EXPECT_EQ(op_named(expand_training_step(small_forward(), {Optimizer::kMomentum}).value(), "fc2/update").optimizer_state_bytes,
            2048);
}

TEST(TrainingStep, RefusesAGraphThatIsAlreadyATrainingStep) {
  Graph once = expand_training_step(small_forward(), {}).value();
  Result<Graph> twice = expand_training_step(once, {});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message(), "graph 'mlp' already holds a training step (backward or update ops)");
}

TEST(TrainingStep, ForwardOpsAndTensorsKeepTheirIds) {
  Graph fwd = small_forward();
  Graph g = expand_training_step(fwd, {}).value();
  for (OpId id = 0; id < fwd.num_ops(); ++id) EXPECT_EQ(g.op(id).name, fwd.op(id).name);
  EXPECT_EQ(g.op(*g.find_op("fc1/grad")).forward_op, *g.find_op("fc1"));
}

}  // namespace
}  // namespace devplace

namespace devplace {
namespace {

// w (weights) read by three MatMuls, plus an embedding table read by a Gather.
Graph shared_weights() {
  GraphBuilder b("shared");
  const OpId w = b.add_op("w", "VariableV2");
  b.mutable_op(w).parameter_bytes = 64;
  const TensorId wt = b.add_output(w, "w:0", {4, 4}, DType::kFloat32);
  const OpId x = b.add_op("x", "Input");
  const TensorId xt = b.add_output(x, "x:0", {2, 4}, DType::kFloat32);
  std::vector<TensorId> outs;
  for (int i = 0; i < 3; ++i) {
    const OpId mm = b.add_op("mm" + std::to_string(i), "MatMul");
    b.add_input(mm, xt);
    b.add_input(mm, wt);
    outs.push_back(b.add_output(mm, "mm" + std::to_string(i) + ":0", {2, 4}, DType::kFloat32));
  }
  const OpId table = b.add_op("table", "VariableV2");
  b.mutable_op(table).parameter_bytes = 4000;
  const TensorId tt = b.add_output(table, "table:0", {1000, 1}, DType::kFloat32);
  const OpId ids = b.add_op("ids", "Input");
  const TensorId it = b.add_output(ids, "ids:0", {2}, DType::kInt32);
  const OpId gather = b.add_op("gather", "Gather");
  b.add_input(gather, tt);
  b.add_input(gather, it);
  outs.push_back(b.add_output(gather, "gather:0", {2, 1}, DType::kFloat32));
  const OpId loss = b.add_op("loss", "Loss");
  for (TensorId t : outs) b.add_input(loss, t);
  b.add_output(loss, "loss:0", {}, DType::kFloat32);
  return std::move(b).build().value();
}

TEST(TrainingStep, AccumulateSumsAsPartsArriveAddNWaitsForAll) {
  Graph acc = expand_training_step(shared_weights(), TrainingOptions{Optimizer::kSgd, GradientAggregation::kAccumulate}).value();
  // Three parts: two running sums, each of two inputs.
  ASSERT_TRUE(acc.find_op("w:0/grad_sum_1").has_value());
  ASSERT_TRUE(acc.find_op("w:0/grad_sum").has_value());
  EXPECT_EQ(acc.op(*acc.find_op("w:0/grad_sum")).inputs.size(), 2u);
  Graph addn = expand_training_step(shared_weights(), TrainingOptions{Optimizer::kSgd, GradientAggregation::kAddN}).value();
  EXPECT_FALSE(addn.find_op("w:0/grad_sum_1").has_value());
  EXPECT_EQ(addn.op(*addn.find_op("w:0/grad_sum")).inputs.size(), 3u);
  EXPECT_EQ(acc.num_ops(), addn.num_ops() + 1);
}

TEST(TrainingStep, GatherTableGradientIsSparse) {
  Graph g = expand_training_step(shared_weights(), TrainingOptions{}).value();
  // gather/grad's gradient for the 4000-byte table covers only the 2 rows read: 8 bytes.
  EXPECT_EQ(g.tensor(*g.find_tensor("gather/grad:0")).bytes, 8);
  ASSERT_TRUE(g.find_tensor("mm0/grad:0").has_value());  // x:0 (an input) has no gradient: :0 is w's
  EXPECT_EQ(g.tensor(*g.find_tensor("mm0/grad:0")).bytes, 64);  // dense for a MatMul's weights
}

}  // namespace
}  // namespace devplace
