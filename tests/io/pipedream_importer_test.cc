// PipeDream profiles: the six shipped profiles against figures computed here
// from the files, a hand-checked tiny profile, every bad-input message, and a
// mutation sweep that must never crash.
#include "io/pipedream_importer.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "../test_temp.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cluster/cluster_json.h"
#include "common/file_io.h"
#include "common/rng.h"
#include "cost/cost_model.h"
#include "cost/roofline_cost_model.h"
#include "io/graph_source.h"
#include "place/run_placer.h"
#include "sim/problem.h"
#include "sim/simulator.h"

namespace devplace {
namespace {

const std::string kDataDir = std::string(DEVPLACE_TESTDATA_DIR) + "/io/testdata/pipedream/";
const std::vector<std::string> kModels = {"alexnet", "gnmt", "resnet18", "resnet50", "squeezenet1_0", "vgg16"};

std::string temp_dir() {
  const std::string dir = (testing::temp_file("pipedream_importer_test") / "").string();
  std::filesystem::create_directories(dir);
  return dir;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = temp_dir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// ---- An independent reading of a profile, for the expected figures ----------

struct FileNode {
  std::string id, description;
  double forward_ms = 0, backward_ms = 0;
  std::vector<double> activations;
  double parameters = 0;
};

struct FileProfile {
  std::vector<FileNode> nodes;
  std::vector<std::pair<std::string, std::string>> edges;
};

double number_after(const std::string& text, const std::string& key) {
  const size_t at = text.find(key + "=");
  EXPECT_NE(at, std::string::npos) << key;
  return std::strtod(text.c_str() + at + key.size() + 1, nullptr);
}

FileProfile read_file_profile(const std::string& path) {
  FileProfile p;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '\t') {
      const size_t sep = line.find(" -- ");
      p.edges.emplace_back(line.substr(1, sep - 1), line.substr(sep + 4));
      continue;
    }
    FileNode n;
    const size_t a = line.find(" -- ");
    const size_t b = line.rfind(" -- ");
    n.id = line.substr(0, a);
    n.description = line.substr(a + 4, b - a - 4);
    const std::string fields = line.substr(b + 4);
    n.forward_ms = number_after(fields, "forward_compute_time");
    n.backward_ms = number_after(fields, "backward_compute_time");
    n.parameters = number_after(fields, "parameter_size");
    std::string act = fields.substr(fields.find("activation_size=") + 16);
    act = act.substr(0, act.find(", parameter_size"));
    if (act[0] == '[') {
      std::stringstream items(act.substr(1, act.size() - 2));
      std::string item;
      while (std::getline(items, item, ';')) n.activations.push_back(std::strtod(item.c_str(), nullptr));
    } else {
      n.activations.push_back(std::strtod(act.c_str(), nullptr));
    }
    p.nodes.push_back(n);
  }
  return p;
}

bool is_getitem_of(const FileNode& consumer, int k) { return consumer.description == "__getitem__(" + std::to_string(k) + ")"; }

bool is_data_input(const FileNode& n) { return n.description.rfind("Input", 0) == 0; }

// ---- The six profiles --------------------------------------------------------

class ShippedProfile : public ::testing::TestWithParam<std::string> {};

// PipeDream's profiler writes a directory per model: load_graph takes it.
TEST(PipeDreamProfile, ADirectoryWithGraphTxtLoadsAsItsProfile) {
  Result<Graph> by_dir = load_graph(kDataDir + "vgg16", GraphLoadOptions{});
  ASSERT_TRUE(by_dir.ok()) << by_dir.error().message();
  Result<Graph> by_file = load_graph(kDataDir + "vgg16/graph.txt", GraphLoadOptions{});
  ASSERT_TRUE(by_file.ok());
  EXPECT_EQ(by_dir.value().num_ops(), by_file.value().num_ops());
  const std::string empty = testing::temp_file("pipedream_empty_dir").string();
  std::filesystem::create_directories(empty);
  Result<Graph> none = load_graph(empty, GraphLoadOptions{});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message(), empty + ": a directory, and not a PipeDream profile's (no graph.txt in it); give a graph file");
}

TEST_P(ShippedProfile, ImportsWithTheFileFigures) {
  const std::string path = kDataDir + GetParam() + "/graph.txt";
  const FileProfile file = read_file_profile(path);
  ASSERT_FALSE(file.nodes.empty());
  Result<Graph> imported = read_pipedream_profile(path);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Graph& g = imported.value();
  EXPECT_EQ(g.name(), GetParam());

  // Expected counts from the file: forward = nodes; update = nodes with
  // parameters; backward = nodes that need a gradient (parameters, or a
  // predecessor that needs one) and are sinks or feed a node with a backward.
  std::map<std::string, int> index;
  for (size_t i = 0; i < file.nodes.size(); ++i) index[file.nodes[i].id] = static_cast<int>(i);
  const size_t n = file.nodes.size();
  std::vector<std::vector<int>> succ(n), pred(n);
  for (auto& [a, b] : file.edges) {
    succ[index.at(a)].push_back(index.at(b));
    pred[index.at(b)].push_back(index.at(a));
  }
  std::vector<char> needs(n, 0), backward(n, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < n; ++i) {
      bool v = file.nodes[i].parameters > 0;
      for (int p : pred[i]) v = v || needs[p];
      bool bw = v && succ[i].empty();
      for (int s : succ[i]) bw = bw || (v && backward[s]);
      if (v != static_cast<bool>(needs[i]) || bw != static_cast<bool>(backward[i])) changed = true;
      needs[i] = v;
      backward[i] = bw;
    }
  }
  int64_t parameter_bytes = 0;
  double activation_bytes = 0, forward_s = 0, backward_s = 0;
  int updates = 0, backwards = 0, sums = 0;
  for (size_t i = 0; i < n; ++i) {
    const FileNode& node = file.nodes[i];
    parameter_bytes += std::llround(node.parameters);
    for (double a : node.activations) activation_bytes += a;
    updates += node.parameters > 0;
    backwards += backward[i];
    if (!is_data_input(node)) forward_s += node.forward_ms / 1000;
    if (backward[i]) backward_s += node.backward_ms / 1000;
    // Gradient sums: per output, one part per consumer with a backward that reads it.
    if (!needs[i]) continue;
    for (size_t k = 0; k < node.activations.size(); ++k) {
      int parts = 0;
      for (int s : succ[i]) {
        const bool reads_k = node.activations.size() == 1 || is_getitem_of(file.nodes[s], static_cast<int>(k)) ||
                             file.nodes[s].description.rfind("__getitem__(", 0) != 0;
        parts += backward[s] && reads_k;
      }
      if (parts > 1) sums += TrainingOptions{}.aggregation == GradientAggregation::kAccumulate ? parts - 1 : 1;
    }
  }

  int forward_ops = 0, grad_ops = 0, update_ops = 0, addn_ops = 0;
  double graph_activation_bytes = 0, graph_forward_s = 0, graph_backward_s = 0;
  for (const Op& op : g.ops()) {
    if (op.phase == OpPhase::kForward) {
      ++forward_ops;
      for (TensorId t : op.outputs) graph_activation_bytes += static_cast<double>(g.tensor(t).bytes);
      if (op.has_measured_time(DeviceKind::kGpu)) graph_forward_s += op.measured_time_s[1];
    } else if (op.phase == OpPhase::kUpdate) {
      ++update_ops;
    } else if (op.type == "AddN") {
      ++addn_ops;
    } else {
      ++grad_ops;
      graph_backward_s += op.measured_time_s[static_cast<int>(DeviceKind::kGpu)];
    }
  }
  EXPECT_EQ(forward_ops, static_cast<int>(n));
  EXPECT_EQ(update_ops, updates);
  EXPECT_EQ(grad_ops, backwards);
  EXPECT_EQ(addn_ops, sums);
  EXPECT_EQ(g.num_ops(), static_cast<int>(n) + updates + backwards + sums);
  EXPECT_EQ(g.total_parameter_bytes(), parameter_bytes);
  EXPECT_DOUBLE_EQ(graph_activation_bytes, activation_bytes);
  EXPECT_NEAR(graph_forward_s, forward_s, 1e-9);
  EXPECT_NEAR(graph_backward_s, backward_s, 1e-9);

  // Layers: a topological numbering 0..n-1 of the forward ops, in op id order.
  for (OpId id = 0; id < static_cast<OpId>(n); ++id) {
    EXPECT_EQ(g.op(id).phase, OpPhase::kForward);
    EXPECT_EQ(g.op(id).layer, id);
  }
  for (auto& [a, b] : file.edges) {
    const OpId from = *g.find_op(a);
    const OpId to = *g.find_op(b);
    EXPECT_LT(g.op(from).layer, g.op(to).layer) << a << " -- " << b;
    bool connected = false;
    for (TensorId t : g.op(to).inputs) connected = connected || g.tensor(t).producer == from;
    EXPECT_TRUE(connected) << a << " -- " << b;
  }
  // Data inputs are CPU-only and free; every other layer carries its GPU times.
  for (const FileNode& node : file.nodes) {
    const Op& op = g.op(*g.find_op(node.id));
    if (is_data_input(node)) {
      EXPECT_EQ(op.kernel_mask, 1u << static_cast<int>(DeviceKind::kCpu)) << node.id;
      EXPECT_EQ(op.measured_time_s[static_cast<int>(DeviceKind::kCpu)], 0.0);
    } else {
      EXPECT_EQ(op.kernel_mask, kAllKernels) << node.id;
      EXPECT_DOUBLE_EQ(op.measured_time_s[static_cast<int>(DeviceKind::kGpu)], node.forward_ms / 1000);
    }
  }
}

TEST_P(ShippedProfile, IsDetectedByTheRegistry) {
  const std::string path = kDataDir + GetParam() + "/graph.txt";
  Result<std::string> text = read_text_file(path);
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(detect_pipedream_profile("copy.txt", std::string_view(text.value()).substr(0, 4096)));
  Result<Graph> g = load_graph(path);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(g.value().name(), GetParam());
  EXPECT_TRUE(g.value().has_backward());
}

INSTANTIATE_TEST_SUITE_P(PipeDream, ShippedProfile, ::testing::ValuesIn(kModels));

TEST(PipeDreamImporter, GnmtMultiOutputLayersFeedTheirGetitems) {
  Result<Graph> imported = read_pipedream_profile(kDataDir + "gnmt/graph.txt");
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Graph& g = imported.value();
  // node7 -- LSTM(2048, 1024): activation_size=[6291456.0; 131072.0; 131072.0]
  const Op& lstm = g.op(*g.find_op("node7"));
  ASSERT_EQ(lstm.outputs.size(), 3u);
  EXPECT_EQ(g.tensor(lstm.outputs[0]).bytes, 6291456);
  EXPECT_EQ(g.tensor(lstm.outputs[1]).bytes, 131072);
  EXPECT_EQ(g.tensor(lstm.outputs[2]).bytes, 131072);
  // node8 -- __getitem__(0), node9 -- __getitem__(1)
  EXPECT_EQ(g.op(*g.find_op("node8")).inputs, std::vector<TensorId>{*g.find_tensor("node7:0")});
  EXPECT_EQ(g.op(*g.find_op("node9")).inputs, std::vector<TensorId>{*g.find_tensor("node7:1")});
  // node20 -- hidden has one (empty) output; its __getitem__(3) reads that one.
  EXPECT_EQ(g.op(*g.find_op("node43")).inputs, std::vector<TensorId>{*g.find_tensor("node20:0")});
  EXPECT_EQ(g.op(*g.find_op("node4")).type, "Embedding");
  EXPECT_EQ(g.op(*g.find_op("node5")).type, "EmuBidirLSTM");
  EXPECT_EQ(g.op(*g.find_op("node1")).type, "Input0");
}

TEST(PipeDreamImporter, GnmtSingleGpuStepOnTheProfilingGpuIsTheMeasuredTimesPlusUpdates) {
  Result<Graph> imported = read_pipedream_profile(kDataDir + "gnmt/graph.txt");
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Graph& g = imported.value();
  // The profile's GPU is taken to be a V100 SXM2, v100x8's GPU.
  EXPECT_EQ(g.measured_on(DeviceKind::kGpu).peak_flops, 1.57e13);
  EXPECT_EQ(g.measured_on(DeviceKind::kGpu).memory_bandwidth_bytes_per_s, 9e11);
  Result<Cluster> cluster = load_cluster("v100x8");
  ASSERT_TRUE(cluster.ok()) << cluster.error().message();
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  Result<Problem> problem = Problem::create(g, cluster.value(), *cost);
  ASSERT_TRUE(problem.ok()) << problem.error().message();
  Simulator sim(problem.value());
  Result<PlacerRun> placed = run_placer("single-gpu", problem.value(), sim);
  ASSERT_TRUE(placed.ok()) << placed.error().message();
  ASSERT_TRUE(sim.run(placed.value().placement).ok());
  const double step_s = sim.result().step_time_s;

  // Everything but the data inputs runs, one op at a time, on /gpu:0: the
  // step is the sum of the measured forward and backward times plus the
  // estimated (roofline) times of the update and gradient-sum ops.
  const DeviceId gpu0 = *cluster.value().first_device_of_kind(DeviceKind::kGpu);
  double measured_s = 0, estimated_s = 0;
  for (OpId id = 0; id < g.num_ops(); ++id) {
    if (placed.value().placement.device_of_op[id] != gpu0) continue;
    if (g.op(id).has_measured_time(DeviceKind::kGpu)) {
      measured_s += g.op(id).measured_time_s[static_cast<int>(DeviceKind::kGpu)];
    } else {
      estimated_s += problem.value().op_time_s(id, gpu0);
    }
  }
  EXPECT_NEAR(sim.result().devices[gpu0].busy_s, measured_s + estimated_s, 1e-9);
  EXPECT_GE(step_s, measured_s + estimated_s);
  EXPECT_LE(step_s, measured_s + estimated_s + 1e-3);  // + the (empty) inputs' transfers
  // The profile's sums over its non-input layers: forward 33.533 ms +
  // backward 55.883 ms = 89.416 ms. The rest is estimated: 11 Adam updates
  // read and write 7x the 775063808 parameter bytes at 900 GB/s x 0.7 on a
  // V100, 8.61 ms, plus launches and 6 gradient sums.
  EXPECT_NEAR(measured_s, 0.089416, 1e-6);
  EXPECT_NEAR(estimated_s, 0.00861, 0.0005);
  EXPECT_NEAR(step_s, measured_s + estimated_s, 1e-3);
  EXPECT_FALSE(sim.result().oom);
}

TEST(PipeDreamImporter, MeasuredTimesScaleToOtherGpusByTheRooflineRatio) {
  // On a K80 die (4.37 TFLOP/s, 240 GB/s against the V100's 15.7 and 900)
  // each measured time is scaled by the ratio of the op's roofline times on
  // the two GPUs, so the single-GPU step is about 3.6x the V100's, not the
  // same (before: 0.1223 s on the K80 against 0.0983 s on the V100).
  const Graph g = read_pipedream_profile(kDataDir + "gnmt/graph.txt").value();
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  RooflineCostModel roofline;
  const Cluster k80 = load_cluster("k80x4").value(), v100 = load_cluster("v100x8").value();
  const Problem on_k80 = Problem::create(g, k80, *cost).value(), on_v100 = Problem::create(g, v100, *cost).value();
  const DeviceId k = *k80.first_device_of_kind(DeviceKind::kGpu), v = *v100.first_device_of_kind(DeviceKind::kGpu);
  int scaled = 0;
  for (OpId id = 0; id < g.num_ops(); ++id) {
    if (!g.op(id).has_measured_time(DeviceKind::kGpu) || !g.op(id).has_kernel(DeviceKind::kGpu)) continue;
    const double measured = g.op(id).measured_time_s[static_cast<int>(DeviceKind::kGpu)];
    EXPECT_DOUBLE_EQ(on_v100.op_time_s(id, v), measured * v100.device(v).time_scale);
    Device reference = k80.device(k);
    reference.peak_flops = 1.57e13;
    reference.memory_bandwidth_bytes_per_s = 9e11;
    const double ratio = roofline.op_time_s(g, id, k80.device(k)) / roofline.op_time_s(g, id, reference);
    EXPECT_NEAR(on_k80.op_time_s(id, k), measured * ratio * k80.device(k).time_scale, 1e-12) << g.op(id).name;
    scaled += ratio > 1.01;
  }
  EXPECT_GT(scaled, 50);
  auto single_gpu_step = [](const Problem& p) {
    Simulator sim(p);
    return sim.evaluate(run_placer("single-gpu", p, sim).value().placement).value().step_time_s;
  };
  const double slower = single_gpu_step(on_k80) / single_gpu_step(on_v100);
  EXPECT_GT(slower, 3.0);
  EXPECT_LT(slower, 3.7);
}

// ---- A tiny profile, checked by hand ----------------------------------------

// Lines out of order on purpose; node2 has two outputs, node3 unpacks the
// second, node4 (not a __getitem__) reads both.
const char* const kTiny =
    "node4 -- ReLU -- forward_compute_time=1.000, backward_compute_time=1.500, activation_size=4096.0, parameter_size=0.000\n"
    "node1 -- Input0 -- forward_compute_time=12.000, backward_compute_time=0.000, activation_size=8192.0, parameter_size=0.000\n"
    "node3 -- __getitem__(1) -- forward_compute_time=0.000, backward_compute_time=0.000, activation_size=64.0, parameter_size=0.000\n"
    "node2 -- Linear(in_features=1024, out_features=1024, bias=True) -- forward_compute_time=2.000, "
    "backward_compute_time=5.000, activation_size=[4096.0; 64.0], parameter_size=4198400.000\n"
    "\tnode1 -- node2\n"
    "\tnode2 -- node3\n"
    "\tnode2 -- node4\n";

void expect_tiny_graph(const Graph& g) {
  // 4 forward + 3 backward (node2, and the sinks node3, node4; the input has
  // none) + 1 gradient sum (node2:1 is read by node3 and node4) + 1 update.
  ASSERT_EQ(g.num_ops(), 9);
  const std::vector<std::string> names = {"node1", "node2", "node3", "node4"};
  const std::vector<std::string> types = {"Input0", "Linear", "__getitem__", "ReLU"};
  for (OpId id = 0; id < 4; ++id) {
    EXPECT_EQ(g.op(id).name, names[id]);
    EXPECT_EQ(g.op(id).type, types[id]);
    EXPECT_EQ(g.op(id).layer, id);
  }
  const Op& input = g.op(0);
  EXPECT_EQ(input.kernel_mask, 1u << static_cast<int>(DeviceKind::kCpu));
  EXPECT_EQ(input.measured_time_s[static_cast<int>(DeviceKind::kCpu)], 0.0);
  EXPECT_EQ(input.flops, 0.0);
  ASSERT_EQ(input.outputs.size(), 1u);
  EXPECT_EQ(g.tensor(input.outputs[0]).bytes, 8192);

  const Op& linear = g.op(1);
  EXPECT_EQ(linear.parameter_bytes, 4198400);  // 1024 x 1024 x 4 + 1024 x 4
  EXPECT_DOUBLE_EQ(linear.measured_time_s[static_cast<int>(DeviceKind::kGpu)], 0.002);
  EXPECT_DOUBLE_EQ(linear.measured_backward_time_s[static_cast<int>(DeviceKind::kGpu)], 0.005);
  EXPECT_DOUBLE_EQ(linear.flops, 0.002 * 1.57e13 * 0.65);  // = 2.041e10 (a contraction op)
  ASSERT_EQ(linear.outputs.size(), 2u);
  EXPECT_EQ(g.tensor(linear.outputs[0]).name, "node2:0");
  EXPECT_EQ(g.tensor(linear.outputs[0]).bytes, 4096);
  EXPECT_EQ(g.tensor(linear.outputs[1]).bytes, 64);
  EXPECT_EQ(linear.inputs, std::vector<TensorId>{input.outputs[0]});
  EXPECT_EQ(g.op(2).inputs, std::vector<TensorId>{linear.outputs[1]});
  EXPECT_EQ(g.op(3).inputs, (std::vector<TensorId>{linear.outputs[0], linear.outputs[1]}));
  EXPECT_DOUBLE_EQ(g.op(3).flops, 0.001 * 1.57e13 * 0.25);  // = 3.925e9 (not a contraction)

  const Op& linear_grad = g.op(*g.find_op("node2/grad"));
  EXPECT_DOUBLE_EQ(linear_grad.measured_time_s[static_cast<int>(DeviceKind::kGpu)], 0.005);
  EXPECT_DOUBLE_EQ(g.op(*g.find_op("node4/grad")).measured_time_s[static_cast<int>(DeviceKind::kGpu)], 0.0015);
  EXPECT_EQ(g.op(*g.find_op("node3/grad")).measured_time_s[static_cast<int>(DeviceKind::kGpu)], 0.0);
  EXPECT_TRUE(g.find_op("node2:1/grad_sum").has_value());
  EXPECT_TRUE(g.find_op("node2/update").has_value());
  EXPECT_FALSE(g.find_op("node1/grad").has_value());
  EXPECT_EQ(g.op(*g.find_op("node2/update")).layer, 1);
  EXPECT_EQ(g.total_parameter_bytes(), 4198400);
}

TEST(PipeDreamImporter, TinyProfileByHand) {
  const std::string path = write_temp("tiny.txt", kTiny);
  Result<Graph> g = read_pipedream_profile(path);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(g.value().name(), "tiny");
  expect_tiny_graph(g.value());

  Result<PipeDreamProfile> profile = parse_pipedream_profile(kTiny, "tiny");
  ASSERT_TRUE(profile.ok());
  EXPECT_EQ(profile.value().nodes[3].description, "Linear(in_features=1024, out_features=1024, bias=True)");
  EXPECT_EQ(profile.value().nodes[3].line, 4);
  EXPECT_EQ(profile.value().edges.size(), 3u);
}

TEST(PipeDreamImporter, AcceptsVariantsOfTheSyntax) {
  // CRLF, a stage id, a comma-separated list, " -- " inside a description,
  // a repeated edge, blank lines, no final newline.
  const std::string text =
      "node4 -- ReLU -- forward_compute_time=1.000, backward_compute_time=1.500, activation_size=4096.0, parameter_size=0.000 -- stage_id=1\r\n"
      "\r\n"
      "node1 -- Input0 -- forward_compute_time=12.000, backward_compute_time=0.000, activation_size=8192.0, parameter_size=0.000\r\n"
      "node3 -- __getitem__(1) -- forward_compute_time=0, backward_compute_time=0, activation_size=[64], parameter_size=0\r\n"
      "node2 -- Linear(note -- (nested) parens) -- forward_compute_time=2.000,backward_compute_time=5.000, "
      "activation_size=[4096.0, 64.0], parameter_size=4198400.000 -- stage_id=0\r\n"
      "\tnode1 -- node2\r\n"
      "    node2 -- node3\r\n"
      "\tnode2 -- node4\r\n"
      "\tnode2 -- node4";
  Result<PipeDreamProfile> profile = parse_pipedream_profile(text, "variants");
  ASSERT_TRUE(profile.ok()) << profile.error().message();
  EXPECT_EQ(profile.value().nodes[0].stage_id, 1);
  EXPECT_EQ(profile.value().nodes[3].description, "Linear(note -- (nested) parens)");
  EXPECT_EQ(profile.value().edges.size(), 3u);
  Result<Graph> g = pipedream_profile_to_graph(profile.value(), "variants");
  ASSERT_TRUE(g.ok()) << g.error().message();
  expect_tiny_graph(g.value());
}

TEST(PipeDreamImporter, GraphNames) {
  EXPECT_EQ(pipedream_graph_name("profiles/gnmt/graph.txt"), "gnmt");
  EXPECT_EQ(pipedream_graph_name("/a/b/vgg16/graph.txt"), "vgg16");
  EXPECT_EQ(pipedream_graph_name("x/tiny.txt"), "tiny");
  EXPECT_EQ(pipedream_graph_name("profile"), "profile");
  EXPECT_FALSE(pipedream_graph_name("graph.txt").empty());
}

TEST(PipeDreamImporter, Detection) {
  EXPECT_TRUE(detect_pipedream_profile("any/graph.txt", ""));
  EXPECT_TRUE(detect_pipedream_profile("p.txt", "\nnode12 -- Conv2d(3, 64) -- forward_compute_time=1.0, ..."));
  EXPECT_FALSE(detect_pipedream_profile("p.txt", "node12 -- Conv2d(3, 64)\n -- forward_compute_time=1.0"));
  EXPECT_FALSE(detect_pipedream_profile("p.txt", "layer1 -- Conv2d -- forward_compute_time=1.0"));
  EXPECT_FALSE(detect_pipedream_profile("g.json", "{\"format\": \"devplace-graph\"}"));
  const std::string path = write_temp("detected.txt", kTiny);
  Result<Graph> g = load_graph(path);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(g.value().name(), "detected");
}

// ---- Bad input: one line, naming the file and the line -----------------------

std::string error_of(const std::string& name, const std::string& text) {
  const std::string path = write_temp(name, text);
  Result<Graph> g = read_pipedream_profile(path);
  if (g.ok()) return "(no error)";
  EXPECT_TRUE(g.error().is_user_error());
  const std::string& m = g.error().message();
  EXPECT_EQ(m.rfind(path, 0), 0u) << m;
  return m.substr(m.rfind(path, 0) == 0 ? path.size() : 0);
}

const std::string kInput =
    "node1 -- Input0 -- forward_compute_time=0.000, backward_compute_time=0.000, activation_size=16.0, parameter_size=0.000\n";
const std::string kLinear =
    "node2 -- Linear(4, 4) -- forward_compute_time=1.000, backward_compute_time=2.000, activation_size=16.0, parameter_size=80.000\n";

std::string node7(const std::string& fields) { return "node7 -- LSTM(2, 2) -- " + fields + "\n"; }

TEST(PipeDreamImporterErrors, BadNumbers) {
  EXPECT_EQ(error_of("bad.txt", kInput + node7("forward_compute_time=abc, backward_compute_time=1, activation_size=4, parameter_size=4")),
            ":2: node 'node7': forward_compute_time: expected a non-negative number, got 'abc'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1, backward_compute_time=-0.5, activation_size=4, parameter_size=4")),
            ":1: node 'node7': backward_compute_time: expected a non-negative number, got '-0.5'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=nan, backward_compute_time=1, activation_size=4, parameter_size=4")),
            ":1: node 'node7': forward_compute_time: expected a non-negative number, got 'nan'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=inf, backward_compute_time=1, activation_size=4, parameter_size=4")),
            ":1: node 'node7': forward_compute_time: expected a non-negative number, got 'inf'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1e400, backward_compute_time=1, activation_size=4, parameter_size=4")),
            ":1: node 'node7': forward_compute_time: expected a non-negative number, got '1e400'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1.5ms, backward_compute_time=1, activation_size=4, parameter_size=4")),
            ":1: node 'node7': forward_compute_time: expected a non-negative number, got '1.5ms'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=2e9, backward_compute_time=1, activation_size=4, parameter_size=4")),
            ":1: node 'node7': forward_compute_time: expected at most 1e9 ms, got '2e9'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1, backward_compute_time=1, activation_size=4, parameter_size=1e300")),
            ":1: node 'node7': parameter_size: expected at most 2^50 bytes, got '1e300'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1, backward_compute_time=1, activation_size=[4; x], parameter_size=4")),
            ":1: node 'node7': activation_size[1]: expected a non-negative number, got 'x'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1, backward_compute_time=1, activation_size=[], parameter_size=4")),
            ":1: node 'node7': activation_size: expected at least one size, got '[]'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1, backward_compute_time=1, activation_size=[4; 4, parameter_size=4")),
            ":1: node 'node7': activation_size: expected a number or a list [A; B; ...], got '[4; 4, parameter_size=4'");
  const std::string big = "forward_compute_time=1, backward_compute_time=1, activation_size=1e15, parameter_size=1e15";
  EXPECT_EQ(error_of("bad.txt", node7(big)), ":1: node 'node7': sizes in this profile add up to more than 2^50 bytes");
}

TEST(PipeDreamImporterErrors, BadFields) {
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1, backward_compute_time=1, activation_size=4")),
            ":1: node 'node7': missing field 'parameter_size'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1, backward_compute_time=1, activation_size=4, parameter_size=4, flops=9")),
            ":1: node 'node7': unknown field 'flops' (known: forward_compute_time, backward_compute_time, activation_size, "
            "parameter_size)");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1, forward_compute_time=1, activation_size=4, parameter_size=4")),
            ":1: node 'node7': forward_compute_time: given twice");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1, backward_compute_time, activation_size=4, parameter_size=4")),
            ":1: node 'node7': expected 'KEY=VALUE', got 'backward_compute_time'");
  EXPECT_EQ(error_of("bad.txt", node7("forward_compute_time=1, backward_compute_time=1, activation_size=4, parameter_size=4 -- stage_id=x")),
            ":1: node 'node7': stage_id: expected a non-negative integer, got 'x'");
}

TEST(PipeDreamImporterErrors, BadLines) {
  EXPECT_EQ(error_of("bad.txt", kInput + "node2 -- Linear(4, 4)\n"),
            ":2: expected 'ID -- DESCRIPTION -- forward_compute_time=..., backward_compute_time=..., activation_size=..., "
            "parameter_size=...' (edge lines are indented), got 'node2 -- Linear(4, 4)'");
  EXPECT_EQ(error_of("bad.txt", kInput + "node2 --  -- forward_compute_time=1\n"),
            ":2: node 'node2': expected a layer description such as 'Conv2d(...)', got ''");
  EXPECT_EQ(error_of("bad.txt", kInput + "my node -- A -- forward_compute_time=1\n"),
            ":2: node id: expected a name without spaces, got 'my node'");
  EXPECT_EQ(error_of("bad.txt", kInput + kLinear + "\tnode1 node2\n"), ":3: expected an edge 'FROM -- TO', got 'node1 node2'");
  EXPECT_EQ(error_of("bad.txt", kInput + kLinear + "\tnode1 -- node2 -- node3\n"),
            ":3: expected an edge 'FROM -- TO', got 'node1 -- node2 -- node3'");
  EXPECT_EQ(error_of("bad.txt", kInput + "node\x01 -- A\x7f -- x\n"), ":2: node 'node\\x01': expected 'KEY=VALUE', got 'x'");
}

TEST(PipeDreamImporterErrors, BadGraphs) {
  EXPECT_EQ(error_of("bad.txt", kInput + kLinear + kInput), ":3: node 'node1': duplicate node (first on line 1)");
  EXPECT_EQ(error_of("bad.txt", kInput + kLinear + "\tnode1 -- node2\n\tnode2 -- node9\n"),
            ":4: edge 'node2 -- node9': unknown node 'node9'");
  EXPECT_EQ(error_of("bad.txt", "\tnode0 -- node2\n" + kInput + kLinear), ":1: edge 'node0 -- node2': unknown node 'node0'");
  const std::string node3 =
      "node3 -- ReLU -- forward_compute_time=1, backward_compute_time=1, activation_size=16, parameter_size=0\n";
  EXPECT_EQ(error_of("bad.txt", kInput + kLinear + node3 + "\tnode1 -- node2\n\tnode2 -- node3\n\tnode3 -- node2\n"),
            ": cycle: 'node2' -> 'node3' -> 'node2'");
  EXPECT_EQ(error_of("bad.txt", ""), ": empty PipeDream profile: no nodes");
  EXPECT_EQ(error_of("bad.txt", "\n \r\n\t\n"), ": empty PipeDream profile: no nodes");
  EXPECT_EQ(error_of("bad.txt", kInput + node3 + "\tnode1 -- node3\n"),
            ": graph 'bad' has no parameters (no op has parameter_bytes): nothing to train");
  Result<Graph> missing = read_pipedream_profile(temp_dir() + "missing/graph.txt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), temp_dir() + "missing/graph.txt: cannot read file");
}

// ---- Mutations of a valid profile never crash ---------------------------------

TEST(PipeDreamImporter, MutatedProfilesGiveAGraphOrOneLineError) {
  const std::string base = kTiny;
  std::string alphabet = "0123456789.e-+[];,= ()_\t\n\r\x01\xff";
  alphabet.push_back('\0');
  Rng rng(7);
  int errors = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(rng.below(4));
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng.below(text.size());
      switch (rng.below(4)) {
        case 0: text[at] = alphabet[rng.below(alphabet.size())]; break;
        case 1: text.erase(at, 1 + rng.below(20)); break;
        case 2: text.insert(at, text.substr(rng.below(text.size()), rng.below(40))); break;
        default: text.resize(at); break;
      }
    }
    Result<PipeDreamProfile> profile = parse_pipedream_profile(text, "m.txt");
    std::optional<Error> error;
    if (!profile.ok()) {
      error = profile.error();
    } else {
      Result<Graph> g = pipedream_profile_to_graph(profile.value(), "m.txt");
      if (!g.ok()) error = g.error();
    }
    if (!error) continue;
    ++errors;
    EXPECT_EQ(error->message().rfind("m.txt", 0), 0u) << error->message();
    EXPECT_EQ(error->message().find('\n'), std::string::npos) << error->message();
    EXPECT_TRUE(error->is_user_error()) << error->message();
  }
  EXPECT_GT(errors, 100);
}

}  // namespace
}  // namespace devplace
