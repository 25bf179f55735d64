// TensorFlow GraphDef import: the 2-layer MLP training graph of
// tools/make_tf_fixtures.py (binary and text give one graph), its shapes,
// parameters, hand-checked FLOPs, co-location and pins, measured times from
// a RunMetadata and a CostGraphDef, write-back of a placement (devices set,
// unknown fields kept), and one exact message per kind of bad file.
#include "io/tf_graphdef_importer.h"

#include <gtest/gtest.h>

#include "../test_graphs.h"

#include "../test_temp.h"

#include "cluster/cluster_json.h"
#include "common/file_io.h"
#include "cost/cost_model.h"
#include "io/graph_source.h"
#include "io/native_json.h"
#include "io/tf_graphdef_writer.h"
#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace {
namespace {

std::string fixture(const std::string& name) { return std::string(DEVPLACE_TESTDATA_DIR) + "/io/testdata/tf/" + name; }

Graph load(const std::string& name, const std::string& costs = "") {
  Result<Graph> g = costs.empty() ? read_tf_graphdef(fixture(name)) : read_tf_graphdef_with_costs(fixture(name), fixture(costs));
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message());
  return std::move(g).value();
}

using testing::op_named;

const Tensor& tensor_named(const Graph& g, const std::string& name) {
  std::optional<TensorId> id = g.find_tensor(name);
  EXPECT_TRUE(id.has_value()) << "no tensor " << name;
  return g.tensor(id.value_or(0));
}

std::string error_of(const Result<Graph>& g) { return g.ok() ? "(no error)" : g.error().message(); }

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = testing::temp_file(name).string();
  EXPECT_TRUE(write_text_file(path, bytes).ok());
  return path;
}

TEST(TfGraphDefImporter, BinaryAndTextAreOneGraph) {
  const Graph pb = load("mlp.pb");
  const Graph text = load("mlp.pbtxt");
  EXPECT_EQ(graph_to_json(pb).dump(), graph_to_json(text).dump());
  EXPECT_EQ(pb.name(), "mlp");
}

TEST(TfGraphDefImporter, OpsTensorsEdgesAndShapes) {
  const Graph g = load("mlp.pb");
  // One op per node: 18 forward (2 inputs, 4 variables + 4 reads, the layers, the loss),
  // 14 under gradients/, the learning rate, 4 updates and the final NoOp.
  EXPECT_EQ(g.num_ops(), 38);
  // One tensor per node output (37 nodes with one, the cross-entropy with two;
  // the NoOp none) and a control tensor for each of the 4 updates the NoOp waits for.
  EXPECT_EQ(g.num_tensors(), 37 + 1 + 4);
  // Data inputs: 17 forward, 18 backward, 3 per update; and the NoOp's 4 control inputs.
  EXPECT_EQ(g.num_edges(), 17 + 18 + 4 * 3 + 4);
  EXPECT_EQ(tensor_named(g, "fc1/MatMul:0").shape, (std::vector<int64_t>{32, 128}));
  EXPECT_EQ(tensor_named(g, "fc1/MatMul:0").bytes, 32 * 128 * 4);
  EXPECT_EQ(tensor_named(g, "loss/xent:1").shape, (std::vector<int64_t>{32, 10}));
  EXPECT_EQ(tensor_named(g, "loss/Const:0").dtype, DType::kInt32);
  EXPECT_EQ(tensor_named(g, "loss/Mean:0").bytes, 4);  // a scalar
  EXPECT_EQ(tensor_named(g, "^GradientDescent/update_fc1/w/ApplyGradientDescent").bytes, 0);
  EXPECT_EQ(op_named(g, "GradientDescent").inputs.size(), 4u);
  EXPECT_TRUE(op_named(g, "GradientDescent").outputs.empty());
  // The backward multiply reads the cross-entropy's second output.
  const Op& mul = op_named(g, "gradients/loss/xent_grad/mul");
  ASSERT_EQ(mul.inputs.size(), 2u);
  EXPECT_EQ(g.tensor(mul.inputs[1]).name, "loss/xent:1");
}

TEST(TfGraphDefImporter, ParametersPhasesAndFlops) {
  const Graph g = load("mlp.pb");
  // Variables: 784x128 + 128 + 128x10 + 10 floats.
  EXPECT_EQ(g.total_parameter_bytes(), (784 * 128 + 128 + 128 * 10 + 10) * 4);
  EXPECT_EQ(op_named(g, "fc1/w").parameter_bytes, 784 * 128 * 4);
  EXPECT_EQ(op_named(g, "fc1/w/read").parameter_bytes, 0);
  EXPECT_EQ(op_named(g, "fc1/MatMul").phase, OpPhase::kForward);
  EXPECT_EQ(op_named(g, "gradients/fc1/Relu_grad/ReluGrad").phase, OpPhase::kBackward);
  EXPECT_EQ(op_named(g, "gradients/grad_ys_0").phase, OpPhase::kBackward);
  EXPECT_EQ(op_named(g, "GradientDescent/update_fc2/w/ApplyGradientDescent").phase, OpPhase::kUpdate);
  EXPECT_TRUE(g.has_backward());
  // FLOPs, 2 per multiply-add: [32,784] x [784,128]; the weight gradient x^T [784,32] x [32,128].
  EXPECT_DOUBLE_EQ(op_named(g, "fc1/MatMul").flops, 2.0 * 32 * 784 * 128);
  EXPECT_DOUBLE_EQ(op_named(g, "gradients/fc1/MatMul_grad/MatMul_1").flops, 2.0 * 784 * 32 * 128);
  EXPECT_DOUBLE_EQ(op_named(g, "gradients/fc2/MatMul_grad/MatMul").flops, 2.0 * 32 * 10 * 128);
  EXPECT_DOUBLE_EQ(op_named(g, "fc1/BiasAdd").flops, 32.0 * 128);
  EXPECT_DOUBLE_EQ(op_named(g, "gradients/fc1/BiasAdd_grad/BiasAddGrad").flops, 32.0 * 128);
  EXPECT_DOUBLE_EQ(op_named(g, "loss/xent").flops, 8.0 * 32 * 10);
  EXPECT_DOUBLE_EQ(op_named(g, "GradientDescent/update_fc1/w/ApplyGradientDescent").flops, 2.0 * 784 * 128);
  EXPECT_DOUBLE_EQ(op_named(g, "fc1/w/read").flops, 0);
  // --training on a graph that holds its own gradients is refused.
  GraphLoadOptions training;
  training.training = true;
  Result<Graph> expanded = load_graph(fixture("mlp.pb"), training);
  EXPECT_NE(error_of(expanded).find("already holds a training step"), std::string::npos) << error_of(expanded);
}

TEST(TfGraphDefImporter, ColocationAndPinnedDevices) {
  const Graph g = load("mlp.pb");
  // _class "loc:@fc1/w": the variable, its read and its update share a group named after it.
  for (const char* name : {"fc1/w", "fc1/w/read", "GradientDescent/update_fc1/w/ApplyGradientDescent"})
    EXPECT_EQ(op_named(g, name).colocation_group, "fc1/w") << name;
  EXPECT_EQ(g.group_of(*g.find_op("fc1/w")), g.group_of(*g.find_op("GradientDescent/update_fc1/w/ApplyGradientDescent")));
  EXPECT_EQ(op_named(g, "fc1/MatMul").colocation_group, "");
  // 38 ops, 4 groups of 3.
  EXPECT_EQ(g.num_groups(), 38 - 4 * 2);
  // "/cpu:0" and "/job:localhost/replica:0/task:0/device:GPU:1".
  EXPECT_EQ(op_named(g, "x").pinned_device, "/cpu:0");
  EXPECT_EQ(op_named(g, "fc2/MatMul").pinned_device, "/gpu:1");
  EXPECT_EQ(op_named(g, "fc1/MatMul").pinned_device, "");
  // Data comes from the host: the unpinned placeholder has a CPU kernel only.
  EXPECT_FALSE(op_named(g, "labels").has_kernel(DeviceKind::kGpu));
  EXPECT_TRUE(op_named(g, "fc1/MatMul").has_kernel(DeviceKind::kGpu));
}

TEST(TfGraphDefImporter, MeasuredTimesFromStepStats) {
  const Graph g = load("mlp.pb", "mlp_run_metadata.pb");
  auto gpu = [&](const char* name) { return op_named(g, name).measured_time_s[static_cast<int>(DeviceKind::kGpu)]; };
  auto cpu = [&](const char* name) { return op_named(g, name).measured_time_s[static_cast<int>(DeviceKind::kCpu)]; };
  // The GPU tracer's kernel time (500 - 200 us) replaces the launch (125 - 5 us).
  EXPECT_DOUBLE_EQ(gpu("fc1/MatMul"), 300e-6);
  EXPECT_LT(cpu("fc1/MatMul"), 0);  // not measured on a CPU
  EXPECT_DOUBLE_EQ(gpu("fc2/MatMul"), 80e-6);
  EXPECT_DOUBLE_EQ(gpu("fc1/Relu"), 20.5e-6);  // nanoseconds: 21500 - 1000
  EXPECT_DOUBLE_EQ(cpu("x"), 2e-6);
  EXPECT_DOUBLE_EQ(cpu("labels"), 1e-6);
  EXPECT_LT(gpu("fc1/BiasAdd"), 0);
}

TEST(TfGraphDefImporter, MeasuredTimesFromCostGraph) {
  const Graph g = load("mlp.pbtxt", "mlp_cost_graph.pbtxt");
  EXPECT_DOUBLE_EQ(op_named(g, "fc1/MatMul").measured_time_s[static_cast<int>(DeviceKind::kCpu)], 900e-6);
  EXPECT_DOUBLE_EQ(op_named(g, "fc2/MatMul").measured_time_s[static_cast<int>(DeviceKind::kCpu)], 120e-6);
  EXPECT_LT(op_named(g, "fc2/MatMul").measured_time_s[static_cast<int>(DeviceKind::kGpu)], 0);
}

TEST(TfGraphDefImporter, CostsFileErrors) {
  // The costs of another graph: none of its nodes is in the graph.
  Result<Graph> other = read_tf_graphdef_with_costs(fixture("dangling_input.pbtxt"), fixture("mlp_cost_graph.pbtxt"));
  EXPECT_EQ(error_of(other), fixture("mlp_cost_graph.pbtxt") + ": none of its timed nodes is a node of " +
                                 fixture("dangling_input.pbtxt") + " (e.g. 'fc1/MatMul'): the costs of another graph?");
  const std::string garbage = write_temp("garbage_costs.pb", std::string("\xff\xff\xff\xff", 4));
  EXPECT_EQ(error_of(read_tf_graphdef_with_costs(fixture("mlp.pb"), garbage)),
            garbage + ": not a TensorFlow RunMetadata, StepStats or CostGraphDef (the protobuf does not parse as any of them: "
                      "truncated or corrupted file?)");
  const std::string missing = testing::temp_file("no_such_costs.pb").string();
  EXPECT_EQ(error_of(read_tf_graphdef_with_costs(fixture("mlp.pb"), missing)), missing + ": cannot read file");
  // Only GraphDefs take a costs file.
  GraphLoadOptions costs;
  costs.costs_file = fixture("mlp_run_metadata.pb");
  EXPECT_NE(error_of(load_graph("zoo:rnnlm", costs)).find("--tf-costs: zoo:rnnlm: zoo models take no costs file"), std::string::npos);
}

TEST(TfGraphDefImporter, BadFilesAreOneLineNamingTheNode) {
  EXPECT_EQ(error_of(read_tf_graphdef(fixture("truncated.pb"))),
            fixture("truncated.pb") + ": not a TensorFlow GraphDef (the protobuf does not parse: truncated or corrupted file, or text format?)");
  EXPECT_EQ(error_of(read_tf_graphdef(fixture("dangling_input.pbtxt"))),
            fixture("dangling_input.pbtxt") + ": node 'relu' (#1): input 'ghost' names no node");
  EXPECT_EQ(error_of(read_tf_graphdef(fixture("cycle.pbtxt"))), fixture("cycle.pbtxt") + ": cycle: 'a' -> 'b' -> 'a'");
  EXPECT_EQ(error_of(read_tf_graphdef(fixture("bad_device.pbtxt"))),
            fixture("bad_device.pbtxt") +
                ": node 'relu' (#1): device '/device:TPU:0': device type 'tpu': devplace places on CPU and GPU devices only");
  auto text = [](const std::string& body) { return parse_tf_graphdef(body, "g.pbtxt"); };
  EXPECT_EQ(error_of(parse_tf_graphdef("", "g.pb")), "g.pb: not a TensorFlow GraphDef (no nodes; a protobuf of another kind?)");
  EXPECT_EQ(error_of(text("node { name: \"a\" op: \"Relu\" colour: 3 }")),
            "g.pbtxt:1:35: Message type \"devplace.tf.NodeDef\" has no field named \"colour\". (reading a TensorFlow GraphDef in text format)");
  EXPECT_EQ(error_of(text("node { name: \"a\" op: \"NoOp\" } node { name: \"a\" op: \"NoOp\" }")),
            "g.pbtxt: node 'a' (#1): duplicate node name (first #0)");
  EXPECT_EQ(error_of(text("node { name: \"a\" op: \"NoOp\" } node { name: \"b\" op: \"Relu\" input: \"a:x\" }")),
            "g.pbtxt: node 'b' (#1): input 'a:x': expected NODE, NODE:K (K below 65536) or ^NODE");
  EXPECT_EQ(error_of(text("node { name: \"a\" op: \"Const\" attr { key: \"_output_shapes\" value { list { shape {} } } } }"
                          " node { name: \"b\" op: \"Relu\" input: \"a:1\" }")),
            "g.pbtxt: node 'b' (#1): input 'a:1' names output 1 of 'a', which has 1 outputs (its _output_shapes)");
  EXPECT_EQ(error_of(text("node { name: \"a\" op: \"Relu\" attr { key: \"_class\" value { list { s: \"loc:@ghost\" } } } }")),
            "g.pbtxt: node 'a' (#0): attr _class: 'loc:@ghost' names no node");
  EXPECT_EQ(error_of(text("node { name: \"a\" op: \"Relu\" device: \"@ghost\" }")),
            "g.pbtxt: node 'a' (#0): device '@ghost' names no node to co-locate with");
  EXPECT_EQ(error_of(text("node { name: \"a\" op: \"Relu\" device: \"/gpu:x\" }")),
            "g.pbtxt: node 'a' (#0): device '/gpu:x': device index: expected a number or '*', got 'x'");
  EXPECT_EQ(error_of(text("node { name: \"a\" op: \"VariableV2\" attr { key: \"shape\" value { shape { dim { size: 1000000000 } "
                          "dim { size: 1000000000 } } } } }")),
            "g.pbtxt: node 'a' (#0): output 0 would hold 4e+18 bytes: too large for a model");
}

TEST(TfGraphDefImporter, DeviceKindsAndControlInputs) {
  Result<Graph> g = parse_tf_graphdef(
      "node { name: \"a\" op: \"Const\" device: \"/device:GPU:*\" }"
      " node { name: \"b\" op: \"Relu\" input: \"a\" device: \"/job:worker/task:1/device:CPU:2\" }"
      " node { name: \"c\" op: \"NoOp\" input: \"^a\" input: \"^a\" input: \"^b\" }",
      "g.pbtxt");
  ASSERT_TRUE(g.ok()) << error_of(g);
  const Graph& graph = g.value();
  EXPECT_FALSE(op_named(graph, "a").has_kernel(DeviceKind::kCpu));  // any GPU: a GPU kernel only
  EXPECT_EQ(op_named(graph, "a").pinned_device, "");
  EXPECT_EQ(op_named(graph, "b").pinned_device, "/cpu:2");
  EXPECT_EQ(op_named(graph, "c").inputs.size(), 2u);  // one control input per node
  // Without _output_shapes, Relu's shape follows its input's (unknown here): 0 bytes.
  EXPECT_EQ(tensor_named(graph, "b:0").bytes, 0);
}

// place + write back: every node's device set, the file otherwise as it was.
TEST(TfGraphDefWriter, WritesDevicesAndKeepsUnknownFields) {
  std::string bytes = read_binary_file(fixture("mlp.pb"), 1 << 20).value();
  // A node with an unknown field 6 (TensorFlow's experimental_debug_info), a
  // function library (field 2) whose contents devplace does not read, and an
  // unknown top-level field 99: all must come back unchanged.
  const std::string debug_info = std::string("\x32\x03") + "dbg";
  const std::string node = std::string("\x0a\x05") + "extra" + std::string("\x12\x04") + "NoOp" + debug_info;
  const std::string library = std::string("\x12\x05") + std::string("\x0a\x03") + "fun";
  const std::string unknown = std::string("\x98\x06\x2a", 3);  // field 99, varint 42
  bytes += std::string("\x0a") + static_cast<char>(node.size()) + node + library + unknown;
  const std::string input = write_temp("mlp_extra.pb", bytes);

  Result<Graph> g = read_tf_graphdef(input);
  ASSERT_TRUE(g.ok()) << error_of(g);
  const Cluster cluster = load_cluster("k80x4").value();
  const std::unique_ptr<CostModel> cost = make_default_cost_model();
  const Problem problem = Problem::create(g.value(), cluster, *cost).value();
  // Everything on /gpu:2, but the pinned and CPU-only ops.
  Placement p;
  for (const Op& op : g.value().ops()) {
    DeviceId d = *cluster.find_device("/gpu:2");
    if (!op.pinned_device.empty()) d = *cluster.find_device(op.pinned_device);
    if (!op.has_kernel(DeviceKind::kGpu)) d = *cluster.find_device("/cpu:0");
    p.device_of_op.push_back(d);
  }
  ASSERT_TRUE(check_placement(problem, p).ok());

  const std::string placed = testing::temp_file("placed.pb").string();
  ASSERT_TRUE(write_tf_graphdef_placement(placed, input, problem, p).ok());
  const std::string out = read_binary_file(placed, 1 << 20).value();
  EXPECT_NE(out.find(debug_info), std::string::npos);
  EXPECT_NE(out.find(library), std::string::npos);
  EXPECT_NE(out.find(unknown), std::string::npos);
  EXPECT_NE(out.find("/device:GPU:2"), std::string::npos);

  // Read back with devplace's own GraphDef reader: each device is now a pin.
  Result<Graph> back = read_tf_graphdef(placed);
  ASSERT_TRUE(back.ok()) << error_of(back);
  EXPECT_EQ(back.value().num_ops(), g.value().num_ops());
  for (const Op& op : back.value().ops()) {
    const DeviceId d = p.device_of_op[*g.value().find_op(op.name)];
    EXPECT_EQ(op.pinned_device, cluster.device(d).name) << op.name;
  }
  EXPECT_EQ(op_named(back.value(), "fc2/MatMul").pinned_device, "/gpu:1");
  EXPECT_EQ(op_named(back.value(), "x").pinned_device, "/cpu:0");
  EXPECT_EQ(tf_device_string(cluster, *cluster.find_device("/gpu:3")), "/device:GPU:3");
  EXPECT_EQ(tf_device_string(cluster, *cluster.find_device("/cpu:0")), "/device:CPU:0");

  // Text cannot keep the unknown fields: refused before any work.
  Status text = check_tf_graphdef_output("--out", "placed.pbtxt", input);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message(), "--out placed.pbtxt: " + input +
                                        " holds fields outside devplace's GraphDef subset (a function library?), which the text "
                                        "format cannot keep: write a binary .pb");
  EXPECT_TRUE(check_tf_graphdef_output("--out", "placed.pbtxt", fixture("mlp.pb")).ok());
  Status zoo = check_tf_graphdef_output("--out", "placed.pb", "zoo:rnnlm");
  ASSERT_FALSE(zoo.ok());
  EXPECT_EQ(zoo.error().message(), "--out placed.pb: writes a TensorFlow GraphDef, but the graph 'zoo:rnnlm' is not one (give "
                                   "--graph MODEL.pb or .pbtxt, or write the placement as .json or .csv)");
}

}  // namespace
}  // namespace devplace
