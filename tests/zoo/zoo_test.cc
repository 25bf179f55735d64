// The zoo: parameter counts against their published values, FLOPs against
// the shapes, graph sizes, layer marks, options and their errors.
#include "zoo/zoo.h"

#include <gtest/gtest.h>

#include <set>

#include "graph/op_types.h"

namespace devplace {
namespace {

Graph build(const std::string& spec) {
  Result<Graph> g = build_zoo_model(spec);
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message());
  return std::move(g).value();
}

double contraction_flops(const Graph& g, OpPhase phase) {
  double sum = 0;
  for (const Op& op : g.ops()) {
    if (op.phase == phase && is_contraction_op_type(op.type)) sum += op.flops;
  }
  return sum;
}

std::set<int32_t> marks(const Graph& g) {
  std::set<int32_t> m;
  for (const Op& op : g.ops()) m.insert(op.layer);
  return m;
}

TEST(Zoo, ParameterCountsMatchThePublishedModels) {
  // torchvision's resnet50 has 25,557,032 parameters; inception_v3 27,161,264 of
  // which 3,326,696 are the auxiliary classifier we leave out: 23,834,568.
  EXPECT_EQ(build("resnet50").total_parameter_bytes(), int64_t{25'557'032} * 4);
  EXPECT_EQ(build("inception_v3").total_parameter_bytes(), int64_t{23'834'568} * 4);
  // RNNLM: 2 LSTM layers of (2h x 4h + 4h), embedding and softmax of v x h, softmax bias v.
  const int64_t h = 2048, v = 10'000;
  EXPECT_EQ(build("rnnlm").total_parameter_bytes(), (2 * (2 * h * 4 * h + 4 * h) + 2 * v * h + v) * 4);
  // NMT-2: 4 LSTM layers of h = 1024, two embeddings, attention 2h x h, softmax h x v + v.
  const int64_t n = 1024, w = 32'000;
  EXPECT_EQ(build("nmt").total_parameter_bytes(), (4 * (2 * n * 4 * n + 4 * n) + 2 * w * n + 2 * n * n + n * w + w) * 4);
}

TEST(Zoo, ForwardFlopsFollowTheShapes) {
  // ResNet-50: 4.09 G multiply-adds per 224x224 image in its convolutions and fc
  // (the usual figure); x2 FLOPs x 32 images.
  EXPECT_NEAR(contraction_flops(build("resnet50"), OpPhase::kForward), 4.09e9 * 2 * 32, 0.02 * 4.09e9 * 2 * 32);
  // Inception-V3 without the auxiliary head: 5.7 G multiply-adds per image.
  EXPECT_NEAR(contraction_flops(build("inception_v3"), OpPhase::kForward), 5.7e9 * 2 * 32, 0.03 * 5.7e9 * 2 * 32);
  // RNNLM per step and layer: [64, 4096] x [4096, 8192]; softmax [64, 2048] x [2048, 10000]; 40 steps.
  const double lstm = 2.0 * 64 * 4096 * 8192, softmax = 2.0 * 64 * 2048 * 10'000;
  EXPECT_DOUBLE_EQ(contraction_flops(build("rnnlm"), OpPhase::kForward), 40 * (2 * lstm + softmax));
  // Backward contractions cost twice the forward ones.
  Graph r = build("rnnlm");
  EXPECT_DOUBLE_EQ(contraction_flops(r, OpPhase::kBackward), 2 * contraction_flops(r, OpPhase::kForward));
}

TEST(Zoo, GraphsHaveThousandsOfOpsAndGrowWithLayers) {
  const int nmt2 = build("nmt").num_ops();
  const int nmt4 = build("nmt:layers=4").num_ops();
  const int nmt8 = build("nmt:layers=8").num_ops();
  EXPECT_GT(build("rnnlm").num_ops(), 2000);
  EXPECT_GT(nmt2, 5000);
  EXPECT_GT(nmt8, 20000);
  EXPECT_EQ(nmt8 - nmt4, 2 * (nmt4 - nmt2));  // each extra layer pair adds the same ops
  EXPECT_LT(build("rnnlm:steps=10").num_ops(), build("rnnlm").num_ops());
}

TEST(Zoo, GeneratedRecurrentIsAGridOfElmanCells) {
  // 4 layers of [2h, h] + h, a readout h x classes; 20 steps of 4 cells.
  const int64_t h = 1024, classes = 1000;
  const Graph g = build("recurrent:training=0");
  EXPECT_EQ(g.total_parameter_bytes(), (4 * (2 * h * h + h) + h * classes) * 4);
  EXPECT_DOUBLE_EQ(contraction_flops(g, OpPhase::kForward), 20 * (4 * 2.0 * 64 * 2 * h * h + 2.0 * 64 * h * classes));
  int tanh = 0;
  for (const Op& op : g.ops()) tanh += op.type == "Tanh";
  EXPECT_EQ(tanh, 4 * 20);
  EXPECT_EQ(marks(g), (std::set<int32_t>{0, 1, 2, 3}));
  EXPECT_LT(build("recurrent:steps=5").num_ops(), build("recurrent").num_ops());
}

TEST(Zoo, LayerMarksNumberTheExpertsLayers) {
  EXPECT_EQ(marks(build("rnnlm")), (std::set<int32_t>{0, 1}));
  EXPECT_EQ(marks(build("nmt")), (std::set<int32_t>{0, 1, 2, 3}));  // 2 encoder + 2 decoder layers
  EXPECT_EQ(marks(build("nmt:layers=8")).size(), 16u);
  EXPECT_EQ(marks(build("resnet50")).size(), 18u);  // stem, 16 blocks, head
  EXPECT_EQ(marks(build("inception_v3")).size(), 17u);  // 5 stem convs, 11 Mixed blocks, head
  EXPECT_EQ(marks(build("transformer")).size(), 12u);
}

TEST(Zoo, TrainingStepByDefaultWithColocatedGradients) {
  Graph g = build("resnet50");
  EXPECT_TRUE(g.has_backward());
  const OpId conv = *g.find_op("conv1/Conv2D");
  EXPECT_EQ(g.group_of(*g.find_op("conv1/Conv2D/grad")), g.group_of(conv));
  const OpId weights = *g.find_op("conv1/Conv2D/weights");
  EXPECT_EQ(g.group_of(*g.find_op("conv1/Conv2D/weights/update")), g.group_of(weights));
  EXPECT_FALSE(build("resnet50:training=0").has_backward());
  // Data inputs have only a CPU kernel.
  EXPECT_FALSE(g.op(*g.find_op("images")).has_kernel(DeviceKind::kGpu));
}

TEST(Zoo, OptionErrorsNameTheModelAndOption) {
  EXPECT_EQ(build_zoo_model("nmt:layers=x").error().message(), "zoo:nmt: option layers=x: expected an integer in [1, 64]");
  EXPECT_EQ(build_zoo_model("nmt:colour=red").error().message(), "zoo:nmt: unknown option 'colour'");
  EXPECT_EQ(build_zoo_model("nmt:layers").error().message(), "zoo:nmt: option 'layers': expected key=value");
  EXPECT_EQ(build_zoo_model("rnnlm:optimizer=lbfgs").error().message(),
            "zoo:rnnlm: option optimizer=lbfgs: expected sgd, momentum or adam");
  EXPECT_EQ(build_zoo_model("transformer:d_model=100").error().message(),
            "zoo:transformer: d_model (100) must be a multiple of heads (8)");
  EXPECT_EQ(build_zoo_model("alexnet").error().message().rfind("unknown zoo model 'alexnet' (known: rnnlm, nmt, ", 0), 0u);
}

TEST(Zoo, SameSpecSameGraph) {
  Graph a = build("nmt:layers=2,batch=16");
  Graph b = build("nmt:layers=2,batch=16");
  ASSERT_EQ(a.num_ops(), b.num_ops());
  for (OpId i = 0; i < a.num_ops(); ++i) {
    EXPECT_EQ(a.op(i).name, b.op(i).name);
    EXPECT_EQ(a.op(i).flops, b.op(i).flops);
  }
}

}  // namespace
}  // namespace devplace
