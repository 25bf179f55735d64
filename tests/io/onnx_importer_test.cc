// ONNX import: torchvision and torch.nn exports (tools/make_onnx_fixtures.py),
// parameters equal to torch's count, hand-checked FLOPs, training
// expansion, and one exact message per kind of bad file.
#include "io/onnx_importer.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "../test_graphs.h"

#include "../test_temp.h"

#include "common/file_io.h"
#include "common/json_reader.h"
#include "graph/training_step.h"
#include "io/graph_source.h"
#include "io/onnx_einsum.h"

namespace devplace {
namespace {

std::string fixture(const std::string& name) { return std::string(DEVPLACE_TESTDATA_DIR) + "/io/testdata/onnx/" + name; }

Graph load(const std::string& name) {
  Result<Graph> g = read_onnx_model(fixture(name));
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message());
  return std::move(g).value();
}

using testing::op_named;

double flops_of_type(const Graph& g, const std::string& type) {
  double sum = 0;
  for (const Op& op : g.ops()) {
    if (op.type == type) sum += op.flops;
  }
  return sum;
}

class OnnxFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxFixture, ParametersAreTorchsCount) {
  // expected.json holds sum(p.numel() * 4) over model.parameters(), computed by torch.
  json::Json expected = json::parse_file(fixture("expected.json")).value();
  Graph g = load(GetParam());
  EXPECT_EQ(g.total_parameter_bytes(), expected[GetParam()]["parameter_bytes"].get<int64_t>());
  EXPECT_GT(g.total_flops(), 0);
  // One op per node plus the data input(s), but for Constant nodes that hold weights.
  EXPECT_GE(g.num_ops(), expected[GetParam()]["nodes"].get<int>() + 1 - expected[GetParam()].value("weight_constants", 0));
}

INSTANTIATE_TEST_SUITE_P(Exports, OnnxFixture,
                         ::testing::Values("resnet18.onnx", "mobilenet_v2.onnx", "attention.onnx", "lstm.onnx",
                                           // ConvNeXt's layer scale: a [C, 1, 1] parameter times the output
                                           "layer_scale.onnx",
                                           // weights as Constant nodes (Paddle2ONNX); expected.json counts them by hand
                                           "constant_weights.onnx"));

TEST(OnnxImporter, ConvGemmAndLstmFlopsFollowTheShapes) {
  Graph r = load("resnet18.onnx");
  // conv1: batch 4, 3x224x224 -> 64x112x112 with 7x7 kernels: 2 * (4*64*112*112) * (3*7*7).
  EXPECT_DOUBLE_EQ(op_named(r, "/conv1/Conv").flops, 2.0 * 4 * 64 * 112 * 112 * 3 * 7 * 7);
  // fc: [4, 512] x [512, 1000].
  EXPECT_DOUBLE_EQ(flops_of_type(r, "Gemm"), 2.0 * 4 * 512 * 1000);
  EXPECT_FALSE(op_named(r, "x").has_kernel(DeviceKind::kGpu));  // data stays on the host
  // 2 LSTM layers (32 -> 64, 64 -> 64), 10 steps, batch 4:
  // per step 2*batch*(in+hidden)*4*hidden for the gates plus 10*batch*hidden for the cell.
  Graph l = load("lstm.onnx");
  const double layer1 = 10 * (2.0 * 4 * (32 + 64) * 4 * 64 + 10.0 * 4 * 64);
  const double layer2 = 10 * (2.0 * 4 * (64 + 64) * 4 * 64 + 10.0 * 4 * 64);
  EXPECT_DOUBLE_EQ(flops_of_type(l, "LSTM"), layer1 + layer2);
}

TEST(OnnxImporter, LayerMarksComeFromTorchModulePaths) {
  Graph r = load("resnet18.onnx");
  const int32_t layer1 = op_named(r, "/layer1/layer1.0/conv1/Conv").layer;
  const int32_t layer4 = op_named(r, "/layer4/layer4.1/conv2/Conv").layer;
  EXPECT_GE(layer1, 0);
  EXPECT_GT(layer4, layer1);
  EXPECT_EQ(op_named(r, "/layer1/layer1.1/conv2/Conv").layer, layer1);
}

TEST(OnnxImporter, TrainingExpansionThroughTheGraphSource) {
  GraphLoadOptions options;
  options.training = true;
  Result<Graph> g = load_graph(fixture("resnet18.onnx"), options);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_TRUE(g.value().has_backward());
  EXPECT_TRUE(g.value().find_op("/conv1/Conv/grad").has_value());
}

TEST(OnnxImporter, UnknownOpTypesCostTheirBytes) {
  ::testing::internal::CaptureStderr();
  Graph g = load("custom_op.onnx");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "devplace: warning: " + fixture("custom_op.onnx") + ": 1 ops have no cost rule and cost only their bytes: FancyOp (1)\n");
  EXPECT_EQ(op_named(g, "fancy").flops, 0);
}

struct Bad {
  const char* file;
  const char* message;  // after "PATH: "
};

void PrintTo(const Bad& b, std::ostream* os) { *os << b.file; }

class OnnxBadFile : public ::testing::TestWithParam<Bad> {};

TEST_P(OnnxBadFile, OneLineNamingTheFile) {
  Result<Graph> g = read_onnx_model(fixture(GetParam().file));
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message(), fixture(GetParam().file) + ": " + GetParam().message);
  EXPECT_TRUE(g.error().is_user_error());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OnnxBadFile,
    ::testing::Values(
        Bad{"truncated.onnx", "not an ONNX model (the protobuf does not parse: truncated or corrupted file?)"},
        Bad{"random_bytes.onnx", "not an ONNX model (the protobuf does not parse: truncated or corrupted file?)"},
        Bad{"not_a_model.onnx", "not an ONNX model (no graph with nodes; a protobuf of another kind?)"},
        Bad{"empty_graph.onnx", "not an ONNX model (no graph with nodes; a protobuf of another kind?)"},
        Bad{"dangling_input.onnx", "node 'conv1' (#1): input 'x' names no tensor"},
        // Found by fuzz_onnx: ONNX 1.12's shape inference crashed on it; it is now rejected before.
        Bad{"fuzz_unsorted_nodes.onnx", "node '/lstm/Shape_2' (#160): input '/lstm/Sqneeze_output_0' names no tensor"},
        // Found by fuzz_onnx: Debian's libonnx 1.13 dereferences null inside shape inference with data
        // propagation. Inference runs in a child process (io/onnx_shape_inference.h), so devplace lives to
        // say what it could not type. (Constant folding types '/lstm/Expand' (#78); the fuzzer's Squeeze of
        // a dimension of 4 stays untyped.)
        Bad{"libonnx_crash_data_propagation.onnx",
            "node '/lstm/Squeeze' (#92): output '/lstm/Squeeze_output_0' has unknown dimensions after shape inference "
            "(they depend on run-time values); export the model with fixed shapes"},
        Bad{"symbolic_batch.onnx",
            "input 'x' has a symbolic dimension 'batch' (dim 0): give its shape with --input-shape x=?x16 (each ? a number), "
            "or export the model with fixed shapes"},
        Bad{"control_flow.onnx",
            "node 'branch' (#1): control flow (If on a condition known only at run time) is not supported: export the "
            "model traced for fixed inputs (torch.onnx.export without scripting unrolls loops and takes the branch)"},
        Bad{"dynamic_loop.onnx",
            "node 'rnn' (#0): control flow (Loop with a trip count or a condition known only at run time, or more "
            "than devplace unrolls: 100000 iterations, 1000000 nodes) is not supported: export the model traced for "
            "fixed inputs (torch.onnx.export without scripting unrolls loops and takes the branch)"},
        Bad{"sequence_input.onnx", "input 'seq' is a sequence, not a tensor: devplace reads graphs of tensors"},
        // -2^63 / -1 in the shape arithmetic: not folded (it trapped, SIGFPE, before).
        Bad{"overflow_shape.onnx",
            "node 'reshape' (#3): output 'oy' has unknown dimensions after shape inference (they depend on run-time "
            "values); export the model with fixed shapes"},
        Bad{"unknown_shape.onnx",
            "node 'reshape' (#1): output 'reshaped' has unknown dimensions after shape inference (they depend on run-time "
            "values); export the model with fixed shapes"}));

TEST(OnnxImporter, AnIfOnAConstantConditionTakesItsBranch) {
  Graph g = load("static_if.onnx");
  // The input, the Relu before, and the then-branch's Relu in place of the If.
  EXPECT_EQ(g.num_ops(), 3);
  const Op& taken = op_named(g, "branch/then_relu");
  EXPECT_EQ(taken.type, "Relu");
  EXPECT_FALSE(g.find_op("branch/else_neg").has_value());
  EXPECT_TRUE(g.find_tensor("fy").has_value());  // the If's output, now the branch's
  const std::vector<int64_t> shape = {2, 4};
  EXPECT_EQ(g.tensor(g.find_tensor("fy").value()).shape, shape);
}

TEST(OnnxImporter, ALoopOfAConstantTripCountIsUnrolled) {
  Graph g = load("static_loop.onnx");
  // 3 iterations of the body (MatMul, Tanh and two Identities), an
  // Unsqueeze per iteration for the scan output, its Concat, the final
  // Identity of the carried value, and the input.
  EXPECT_EQ(g.num_ops(), 1 + 3 * 4 + 3 + 1 + 1);
  for (int t = 0; t < 3; ++t) {
    const Op& mm = op_named(g, "rnn/iter" + std::to_string(t) + "/cell_matmul");
    EXPECT_EQ(mm.type, "MatMul");
    EXPECT_DOUBLE_EQ(mm.flops, 2.0 * 2 * 4 * 4);
  }
  // Each iteration reads the one before's carried value.
  const Op& second = op_named(g, "rnn/iter1/cell_matmul");
  EXPECT_EQ(g.op(g.tensor(second.inputs[0]).producer).name, "rnn/iter0/cell_tanh");
  // The weight is shared by the iterations: counted once; the iteration
  // numbers, the condition and the axes are constants, not parameters.
  EXPECT_EQ(g.total_parameter_bytes(), 4 * 4 * 4);
  const std::vector<int64_t> stacked = {3, 2, 4}, last = {2, 4};
  EXPECT_EQ(g.tensor(g.find_tensor("hs").value()).shape, stacked);
  EXPECT_EQ(g.tensor(g.find_tensor("h_last").value()).shape, last);
  EXPECT_EQ(g.op(g.tensor(g.find_tensor("h_last").value()).producer).name, "rnn/final0");
}

TEST(OnnxImporter, ResizeCostsItsInterpolation) {
  // 1x3x8x8 -> 1x3x16x16 nearest (one copy per output element, counted as
  // 1 FLOP), then -> 1x3x32x32 linear (4 neighbours weighted and summed:
  // 8 FLOPs per output element). Its scales are a constant, not a parameter.
  Graph g = load("resize.onnx");
  EXPECT_DOUBLE_EQ(op_named(g, "nearest").flops, 1.0 * 3 * 16 * 16);
  EXPECT_DOUBLE_EQ(op_named(g, "linear").flops, 8.0 * 3 * 32 * 32);
  EXPECT_EQ(g.total_parameter_bytes(), 0);
}

TEST(OnnxImporter, ShapesComputedByConstantSubgraphsAreFolded) {
  // torch exports cls_token.expand(x.shape[0], -1, -1) as an Expand whose
  // shape is Where(Equal(Reshape(Concat(...)), Mul(ConstantOfShape, -1)),
  // ...): all constant, opaque to ONNX shape inference.
  json::Json expected = json::parse_file(fixture("expected.json")).value();
  Graph g = load("vit_expand.onnx");
  EXPECT_EQ(g.total_parameter_bytes(), expected["vit_expand.onnx"]["parameter_bytes"].get<int64_t>());
  const std::vector<int64_t> expanded = {2, 1, 16}, joined = {2, 6, 16};
  EXPECT_EQ(g.tensor(g.find_tensor("/Expand_output_0").value()).shape, expanded);
  EXPECT_EQ(g.tensor(g.find_tensor("/Concat_1_output_0").value()).shape, joined);
  // The folded shape arithmetic is no op and no parameter: the data input,
  // Expand, Concat, Transpose, MatMul and Add remain.
  EXPECT_EQ(g.num_ops(), 6);
  EXPECT_TRUE(g.find_op("/Expand").has_value());
  EXPECT_FALSE(g.find_op("/Where").has_value());
}

TEST(OnnxImporter, ShapesFoldedFromShapesInferredInAnEarlierRoundAndEinsum) {
  // Swin's window padding: pads computed from the map's shape with Mod
  // (7 -> 8, (4 - 7 % 4) % 4 = 1), then the padded map's Shape, which only
  // a shape inference after the first fold knows, sets the windows' view;
  // attention by Einsum, whose shapes ONNX inference leaves unknown, with
  // torch's spaces in the equation.
  json::Json expected = json::parse_file(fixture("expected.json")).value();
  Graph g = load("window_pad.onnx");
  EXPECT_EQ(g.total_parameter_bytes(), expected["window_pad.onnx"]["parameter_bytes"].get<int64_t>());
  const std::vector<int64_t> padded = {1, 8, 8, 8}, windows = {1, 4, 16, 8}, scores = {1, 4, 16, 16};
  EXPECT_EQ(g.tensor(g.find_tensor("/Pad_output_0").value()).shape, padded);
  EXPECT_EQ(g.tensor(g.find_tensor("/Reshape_3_output_0").value()).shape, windows);
  EXPECT_EQ(g.tensor(g.find_tensor("/Einsum_output_0").value()).shape, scores);
  EXPECT_EQ(g.tensor(g.find_tensor("/Einsum_1_output_0").value()).shape, windows);
  // b w i c, b w j c -> b w i j: 2 x (1 * 4 * 16 * 16 * 8) FLOPs; the second alike.
  EXPECT_DOUBLE_EQ(op_named(g, "/Einsum").flops, 2.0 * 4 * 16 * 16 * 8);
  EXPECT_DOUBLE_EQ(op_named(g, "/Einsum_1").flops, 2.0 * 4 * 16 * 16 * 8);
  EXPECT_FALSE(g.find_op("/Mod").has_value());  // shape arithmetic, folded
  EXPECT_TRUE(expand_training_step(g, TrainingOptions{}).ok());
}

TEST(OnnxImporter, ShapeArithmeticWithNegMaxAndConstantOfShapeFolds) {
  // Reshape(x, Concat(Slice(Shape(x), 0, 1), ConstantOfShape(Max(Neg([-1]), [0]), 12))):
  // [2, 3, 4] -> [2, 12]; the arithmetic is no op.
  Graph g = load("negated_shape.onnx");
  const std::vector<int64_t> reshaped = {2, 12};
  EXPECT_EQ(g.tensor(g.find_tensor("ny").value()).shape, reshaped);
  EXPECT_EQ(g.num_ops(), 3);  // the input, the Relu, the Reshape
}

TEST(OnnxImporter, ParametersTheExporterSharesAreEachCounted) {
  // An inference export of two untrained LayerNorms: torch stores their
  // equal weights (ones) and biases (zeros) once and names the second
  // LayerNorm's by Identity nodes. torch's count holds both.
  json::Json expected = json::parse_file(fixture("expected.json")).value();
  ASSERT_LT(expected["shared_params.onnx"]["initializers"].get<int>(), 6);  // 6 parameters in torch: some are shared
  Graph g = load("shared_params.onnx");
  EXPECT_EQ(g.total_parameter_bytes(), expected["shared_params.onnx"]["parameter_bytes"].get<int64_t>());
  EXPECT_EQ(g.num_ops(), 4);  // the input, two LayerNorms, the Gemm: the Identity nodes are no ops
}

TEST(OnnxEinsum, ShapesAndFlopsOfEquations) {
  struct Case {
    std::string equation;
    std::vector<std::vector<int64_t>> operands;
    std::vector<int64_t> output;
    double flops;
  };
  for (const Case& c : std::vector<Case>{
           {"ij,jk->ik", {{2, 3}, {3, 5}}, {2, 5}, 2.0 * 2 * 3 * 5},
           {"ij,jk", {{2, 3}, {3, 5}}, {2, 5}, 2.0 * 2 * 3 * 5},            // implicit: the letters used once, in order
           {"ba,ca", {{4, 3}, {5, 3}}, {4, 5}, 2.0 * 4 * 3 * 5},            // implicit: b, c
           {"...ij,...jk->...ik", {{7, 2, 3}, {1, 3, 5}}, {7, 2, 5}, 2.0 * 7 * 2 * 3 * 5},  // "..." broadcasts
           {"i j -> j i", {{2, 3}}, {3, 2}, 6.0},                           // one operand: the product once
           {"ii->i", {{4, 4}}, {4}, 4.0},
           {"bij,bjk,bkl->bil", {{2, 3, 4}, {2, 4, 5}, {2, 5, 6}}, {2, 3, 6}, 2.0 * 2 * 2 * 3 * 4 * 5 * 6},
       }) {
    const std::optional<EinsumResult> r = einsum(c.equation, c.operands);
    ASSERT_TRUE(r.has_value()) << c.equation;
    EXPECT_EQ(r->output, c.output) << c.equation;
    EXPECT_DOUBLE_EQ(r->flops, c.flops) << c.equation;
  }
  // Malformed, or not fitting the shapes.
  for (const auto& [equation, operands] : std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>>{
           {"ij,jk->ik", {{2, 3}, {4, 5}}},    // j is 3 and 4
           {"ij,jk->ik", {{2, 3}}},            // one operand for two terms
           {"ijk,jk->ik", {{2, 3}, {3, 5}}},   // a term of rank 3 for a rank-2 operand
           {"ij,jk->iz", {{2, 3}, {3, 5}}},    // z names no input dimension
           {"ij,jk->ii", {{2, 3}, {3, 5}}},    // an output letter twice
           {"i1,jk->ik", {{2, 3}, {3, 5}}},    // not a letter
           {"....i->i", {{2, 3}}},             // two ellipses
       }) {
    EXPECT_FALSE(einsum(equation, operands).has_value()) << equation;
  }
}

TEST(OnnxImporter, InputShapeFixesDynamicAxes) {
  // The MLP exported with a symbolic batch: with --input-shape x=3x16 it
  // imports as the fixed export does (torch's parameters, batch 3).
  json::Json expected = json::parse_file(fixture("expected.json")).value();
  const InputShapes shapes = {{"x", {3, 16}}};
  Result<Graph> g = read_onnx_model_with_shapes(fixture("symbolic_batch.onnx"), shapes);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(g.value().total_parameter_bytes(), expected["symbolic_batch.onnx"]["parameter_bytes"].get<int64_t>());
  // fc1: [3, 16] x [16, 32]: 2 * 3 * 32 * 16 FLOPs (Gemm or MatMul, as torch exported it).
  EXPECT_DOUBLE_EQ(flops_of_type(g.value(), "Gemm") + flops_of_type(g.value(), "MatMul"), 2.0 * 3 * (16 * 32 + 32 * 8));
  const std::vector<int64_t> batch3 = {3, 16};
  EXPECT_EQ(g.value().tensor(g.value().find_tensor("x").value()).shape, batch3);
  // Through load_graph, as the CLI calls it.
  GraphLoadOptions load;
  load.input_shapes = {{"x", {5, 16}}};
  EXPECT_TRUE(load_graph(fixture("symbolic_batch.onnx"), load).ok());

  struct Case {
    InputShapes shapes;
    std::string message;
  };
  const std::string f = fixture("symbolic_batch.onnx");
  for (const Case& c : {Case{{{"y", {3, 16}}}, "--input-shape y=3x16: " + f + " has no input 'y' (its inputs: x, fc1.weight, fc1.bias, "
                                                                          "fc2.weight, fc2.bias)"},
                        Case{{{"x", {3}}}, "--input-shape x=3: " + f + "'s input 'x' has 2 dimensions (?x16)"},
                        Case{{{"x", {3, 15}}}, "--input-shape x=3x15: " + f + "'s input 'x' is ?x16: dimension 1 is fixed at 16"}}) {
    Result<Graph> bad = read_onnx_model_with_shapes(f, c.shapes);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message(), c.message);
  }
  GraphLoadOptions other;
  other.input_shapes = {{"x", {1}}};
  EXPECT_EQ(load_graph("zoo:rnnlm", other).error().message(),
            "--input-shape: zoo:rnnlm: zoo models have fixed shapes (set them with the model's options)");
}

TEST(OnnxImporter, SyntheticModelWithWeightsImports) {
  const std::string path = testing::temp_file("synthetic.onnx").string();
  ASSERT_TRUE(write_synthetic_onnx_model(path, 8 << 20).ok());  // 2 Gemm layers of 1024 x 1024 floats
  Graph g = read_onnx_model(path).value();
  EXPECT_EQ(g.total_parameter_bytes(), 2 * 1024 * 1024 * 4);
  EXPECT_DOUBLE_EQ(flops_of_type(g, "Gemm"), 2 * 2.0 * 32 * 1024 * 1024);
}

}  // namespace
}  // namespace devplace
