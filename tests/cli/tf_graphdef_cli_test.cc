// devplace on a TensorFlow GraphDef end to end (tests/io/testdata/tf/, made
// by tools/make_tf_fixtures.py): inspect, measured times from --tf-costs,
// place --out placed.pb / .pbtxt (the GraphDef with each node's device,
// read back), and each bad input as one line and exit code 2.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../test_cli.h"

namespace {

using devplace::testing::CliRun;
using devplace::testing::devplace;
using devplace::testing::slurp;
using devplace::testing::temp_file;

std::string tf(const std::string& name) { return std::string(DEVPLACE_TESTDATA_DIR) + "/io/testdata/tf/" + name; }

// The error line devplace prints for `args` (exit code 2 expected, nothing else on stderr).
std::string one_error(const std::string& args) {
  CliRun r = devplace(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  return r.err;
}

// The ops of a graph file as devplace reads it (written as native JSON by convert).
nlohmann::json ops_of(const std::string& graph) {
  const std::string json = temp_file("converted.json").string();
  CliRun r = devplace("convert --graph " + graph + " --out " + json);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json ops = nlohmann::json::object();
  const nlohmann::json converted = nlohmann::json::parse(slurp(json));
  for (const auto& op : converted["ops"]) ops[op["name"].get<std::string>()] = op;
  return ops;
}

TEST(CliTfGraphDef, InspectReadsBinaryAndText) {
  for (const char* file : {"mlp.pb", "mlp.pbtxt"}) {
    CliRun r = devplace("inspect --graph " + tf(file) + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ops"], 38);
    EXPECT_EQ(j["parameter_bytes"], (784 * 128 + 128 + 128 * 10 + 10) * 4);
    EXPECT_EQ(j["training_step"], true);
    EXPECT_EQ(j["phases"]["update"], 4);
  }
  CliRun text = devplace("inspect --graph " + tf("mlp.pb"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("ops              38"), std::string::npos) << text.out;
}

TEST(CliTfGraphDef, CostsFromRunMetadata) {
  CliRun r = devplace("inspect --graph " + tf("mlp.pb") + " --tf-costs " + tf("mlp_run_metadata.pb") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["times"]["gpu"]["measured_ops"], 3);  // fc1/MatMul, fc1/Relu, fc2/MatMul
  EXPECT_EQ(j["times"]["cpu"]["measured_ops"], 2);  // x, labels
  // TensorFlow's _SOURCE node is not in the graph: said once, not an error.
  EXPECT_EQ(r.err, "devplace: note: " + tf("mlp_run_metadata.pb") + " (RunMetadata (step_stats)): 1 timed nodes are not in " +
                       tf("mlp.pb") + " (e.g. '_SOURCE'): not used\n");
  EXPECT_EQ(one_error("inspect --graph zoo:rnnlm --tf-costs " + tf("mlp_run_metadata.pb")),
            "devplace: --tf-costs: zoo:rnnlm: zoo models take no costs file (it applies to TensorFlow GraphDefs)\n");
}

// Every command that reads a graph takes --tf-costs: convert keeps the
// measured times in the JSON it writes, and compare accepts it.
TEST(CliTfGraphDef, EveryGraphCommandTakesCosts) {
  const std::string json = temp_file("mlp.json").string();
  CliRun convert = devplace("convert --graph " + tf("mlp.pb") + " --tf-costs " + tf("mlp_cost_graph.pbtxt") + " --out " + json);
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  CliRun r = devplace("inspect --graph " + json + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["times"]["cpu"]["measured_ops"], 2) << r.out;  // as inspect of mlp.pb with these costs
  for (const std::string& command : std::vector<std::string>{"compare --methods single-gpu", "report --placement single-gpu --out " + temp_file("r.html").string()}) {
    CliRun run = devplace(command + " --graph " + tf("mlp.pb") + " --cluster k80x2 --tf-costs " + tf("mlp_cost_graph.pbtxt"));
    EXPECT_EQ(run.exit_code, 0) << command << ": " << run.err;
  }
  EXPECT_EQ(one_error("convert --graph " + tf("mlp.pb") + " --tf-costs /nonexistent.pb --out " + json),
            "devplace: /nonexistent.pb: cannot read file\n");
}

TEST(CliTfGraphDef, PlaceWritesThePlacedGraphDef) {
  for (const std::string out : {"placed.pb", "placed.pbtxt"}) {
    const std::string placed = temp_file(out).string();
    const std::string in = tf(out == "placed.pb" ? "mlp.pb" : "mlp.pbtxt");
    CliRun r = devplace("place --graph " + in + " --cluster k80x4 --method m-etf --out " + placed);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("placement written to " + placed), std::string::npos) << r.out;
    // Read back: every node now carries a device, which devplace reads as a pin.
    nlohmann::json ops = ops_of(placed);
    ASSERT_EQ(ops.size(), 38u);
    for (const auto& [name, op] : ops.items()) EXPECT_TRUE(op.contains("pinned_device")) << name;
    EXPECT_EQ(ops["fc2/MatMul"]["pinned_device"], "/gpu:1");  // pinned in the input
    EXPECT_EQ(ops["x"]["pinned_device"], "/cpu:0");
    EXPECT_EQ(ops["labels"]["pinned_device"], "/cpu:0");      // CPU kernel only
    // Co-located by _class: a variable, its read and its update.
    EXPECT_EQ(ops["fc1/w"]["pinned_device"], ops["fc1/w/read"]["pinned_device"]);
    EXPECT_EQ(ops["fc1/w"]["pinned_device"], ops["GradientDescent/update_fc1/w/ApplyGradientDescent"]["pinned_device"]);
    const std::string text = slurp(placed);
    EXPECT_NE(text.find(out == "placed.pb" ? "/device:GPU:1" : "device: \"/device:GPU:1\""), std::string::npos);
  }
}

TEST(CliTfGraphDef, SimulateWritesThePlacementItUsedIntoTheGraphDef) {
  const std::string placed = temp_file("simulated.pbtxt").string();
  CliRun r = devplace("simulate --graph " + tf("mlp.pbtxt") + " --cluster k80x4 --placement single-gpu --out " + placed);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json ops = ops_of(placed);
  ASSERT_EQ(ops.size(), 38u);
  EXPECT_EQ(ops["fc1/MatMul"]["pinned_device"], "/gpu:0");
  EXPECT_EQ(ops["x"]["pinned_device"], "/cpu:0");  // CPU kernel only
  EXPECT_EQ(one_error("simulate --graph zoo:rnnlm --cluster k80x4 --placement single-gpu --out " + temp_file("s.pb").string()),
            "devplace: --out " + temp_file("s.pb").string() +
                ": writes a TensorFlow GraphDef, but the graph 'zoo:rnnlm' is not one (give --graph MODEL.pb or .pbtxt, or "
                "write the placement as .json or .csv)\n");
}

TEST(CliTfGraphDef, BadInputIsOneLineAndExitCode2) {
  EXPECT_EQ(one_error("inspect --graph " + tf("truncated.pb")),
            "devplace: " + tf("truncated.pb") +
                ": not a TensorFlow GraphDef (the protobuf does not parse: truncated or corrupted file, or text format?)\n");
  EXPECT_EQ(one_error("inspect --graph " + tf("dangling_input.pbtxt")),
            "devplace: " + tf("dangling_input.pbtxt") + ": node 'relu' (#1): input 'ghost' names no node\n");
  EXPECT_EQ(one_error("inspect --graph " + tf("cycle.pbtxt")), "devplace: " + tf("cycle.pbtxt") + ": cycle: 'a' -> 'b' -> 'a'\n");
  EXPECT_EQ(one_error("place --graph " + tf("unknown_device.pbtxt") + " --cluster k80x4 --method m-etf"),
            "devplace: " + tf("unknown_device.pbtxt") + " on k80x4: op 'relu': pinned_device '/gpu:7' names no device of cluster 'k80x4'\n");
  // A GraphDef is written only from a GraphDef, and that is checked first.
  EXPECT_EQ(one_error("place --graph zoo:rnnlm --cluster k80x4 --method m-etf --out " + temp_file("p.pb").string()),
            "devplace: --out " + temp_file("p.pb").string() +
                ": writes a TensorFlow GraphDef, but the graph 'zoo:rnnlm' is not one (give --graph MODEL.pb or .pbtxt, or "
                "write the placement as .json or .csv)\n");
  EXPECT_EQ(one_error("place --graph " + tf("mlp.pb") + " --cluster k80x4 --method m-etf --out /no/such/dir/p.pb"),
            "devplace: --out: /no/such/dir/p.pb: the folder /no/such/dir does not exist\n");
}

}  // namespace
