// The devplace binary end to end: hand-checked step times, the JSON output,
// the Chrome trace, and one test per kind of bad input (its one-line message
// and exit code 2).
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string data(const std::string& name) { return std::string(DEVPLACE_TESTDATA_DIR) + "/cli/testdata/" + name; }

// Runs devplace with `args` (shell words) from the test data folder's parent.
CliRun devplace(const std::string& args) {
  const fs::path dir = fs::temp_directory_path() / ("devplace_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string cmd = std::string("DEVPLACE_CLUSTERS='") + DEVPLACE_CLUSTERS_DIR + "' '" + DEVPLACE_BINARY + "' " + args +
                          " >'" + (dir / "out").string() + "' 2>'" + (dir / "err").string() + "'";
  const int status = std::system(cmd.c_str());
  CliRun r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
  fs::remove_all(dir);
  return r;
}

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("devplace_cli_test_" + std::to_string(::getpid()) + "_" + name);
}

TEST(Cli, SimulateForkMatchesTheHandComputedStepTime) {
  // a (1 ms on gpu0) -> b (2 ms on gpu0) and c (3 ms on gpu1); a:0 is 250x1000 floats
  // = 1e6 bytes over the direct gpu0-gpu1 link: 1 ms latency + 1e6 / 1e9 s = 2 ms.
  // c starts at 1 + 2 = 3 ms and ends at 6 ms.
  for (const char* placement : {"fork_split.csv", "fork_split.json"}) {
    CliRun r = devplace("simulate --graph " + data("fork.json") + " --cluster " + data("toy_cluster.json") + " --placement " +
                     data(placement) + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_DOUBLE_EQ(j["step_time_s"].get<double>(), 0.006) << placement;
    EXPECT_FALSE(j["oom"].get<bool>());
    ASSERT_EQ(j["devices"].size(), 3u);
    EXPECT_EQ(j["devices"][1]["name"], "/gpu:0");
    EXPECT_DOUBLE_EQ(j["devices"][1]["busy_s"].get<double>(), 0.003);
    EXPECT_EQ(j["devices"][2]["peak_memory_bytes"].get<int64_t>(), 1'000'040);  // received a:0 + c:0
    EXPECT_EQ(j["devices"][2]["memory_capacity_bytes"].get<int64_t>(), int64_t{1} << 30);
  }
}

TEST(Cli, SimulateSingleGpuRunsEverythingOnGpu0) {
  CliRun r = devplace("simulate --graph " + data("fork.json") + " --cluster " + data("toy_cluster.json") +
                   " --placement single-gpu --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["step_time_s"].get<double>(), 0.006);  // 1 + 2 + 3 ms, no transfer
  EXPECT_EQ(j["devices"][1]["num_ops"].get<int>(), 3);
}

TEST(Cli, SimulateReportsOom) {
  CliRun r = devplace("simulate --graph " + data("fork.json") + " --cluster " + data("tiny_memory_cluster.json") +
                   " --placement single-gpu --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["oom"].get<bool>());
  EXPECT_EQ(j["devices"][1]["peak_memory_bytes"].get<int64_t>(), 4096 + 1'000'040);  // a's weights, a:0, b:0 > 1e6
  CliRun text = devplace("simulate --graph " + data("fork.json") + " --cluster " + data("tiny_memory_cluster.json") +
                      " --placement single-gpu");
  EXPECT_NE(text.out.find("OOM        yes"), std::string::npos) << text.out;
}

TEST(Cli, TraceIsAChromeTraceWithDeviceAndLinkLanes) {
  const fs::path trace = temp_file("trace.json");
  CliRun r = devplace("simulate --graph " + data("fork.json") + " --cluster " + data("toy_cluster.json") + " --placement " +
                   data("fork_split.csv") + " --trace " + trace.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json t = nlohmann::json::parse(slurp(trace));
  int ops = 0, transfers = 0;
  std::set<std::string> lanes;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "transfer") ++transfers;
    else if (e["ph"] == "X") ++ops;
    if (e["ph"] == "M" && e["name"] == "thread_name") lanes.insert(e["args"]["name"].get<std::string>());
  }
  EXPECT_EQ(ops, 3);
  EXPECT_EQ(transfers, 1);
  EXPECT_TRUE(lanes.count("/gpu:1"));
  EXPECT_TRUE(lanes.count("/gpu:0->/gpu:1"));
  fs::remove(trace);
}

TEST(Cli, InspectJsonHasTheCounts) {
  CliRun r = devplace("inspect --graph " + data("fork.json") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ops"], 3);
  EXPECT_EQ(j["edges"], 2);
  EXPECT_EQ(j["parameter_bytes"], 4096);
  EXPECT_EQ(j["flops"], 0.0);
  CliRun t = devplace("inspect --graph " + data("fork.json") + " --training --json");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(nlohmann::json::parse(t.out)["training_step"].get<bool>());
}

TEST(Cli, OutWritesAPlacementThatReadsBack) {
  const fs::path out = temp_file("placement.csv");
  CliRun r = devplace("simulate --graph zoo:layered:layers=3 --cluster " + data("toy_cluster.json") +
                   " --placement round-robin --out " + out.string() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  CliRun again = devplace("simulate --graph zoo:layered:layers=3 --cluster " + data("toy_cluster.json") + " --placement " +
                       out.string() + " --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["step_time_s"], nlohmann::json::parse(again.out)["step_time_s"]);
  fs::remove(out);
}

TEST(Cli, ClusterListAndShowThePresets) {
  CliRun list = devplace("cluster list");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const char* name : {"k80x1", "k80x2", "k80x4"}) EXPECT_NE(list.out.find(name), std::string::npos) << name;
  CliRun show = devplace("cluster show k80x4 --json");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  nlohmann::json j = nlohmann::json::parse(show.out);
  EXPECT_EQ(j["devices"].size(), 5u);  // CPU + 4 K80 dies
  CliRun bad = devplace("cluster show k80x5");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown cluster 'k80x5' (presets: "), std::string::npos) << bad.err;
}

TEST(Cli, HelpEverywhere) {
  for (const char* cmd : {"--help", "inspect --help", "simulate --help", "cluster --help", "methods --help"}) {
    CliRun r = devplace(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("usage: devplace"), std::string::npos) << cmd;
  }
}

struct BadCase {
  std::string args;
  std::string message;  // the whole stderr line after "devplace: "
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << "devplace " << c.args; }

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, OneLineNamingThePlaceAndExitCode2) {
  CliRun r = devplace(GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "devplace: " + GetParam().message + "\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

std::string sim(const std::string& graph, const std::string& cluster, const std::string& placement) {
  return "simulate --graph " + graph + " --cluster " + cluster + " --placement " + placement;
}

INSTANTIATE_TEST_SUITE_P(
    Cli, BadInput,
    ::testing::Values(
        BadCase{sim(data("bad_malformed.json"), "k80x1", "cpu"),
                data("bad_malformed.json") + ":5:34: malformed JSON: syntax error while parsing object key - unexpected '}'; "
                                             "expected string literal"},
        BadCase{sim(data("bad_missing_field.json"), "k80x1", "cpu"),
                data("bad_missing_field.json") + ": ops[0] ('a').type: missing required field"},
        BadCase{sim(data("bad_cycle.json"), "k80x1", "cpu"), data("bad_cycle.json") + ": cycle: 'a' -> 'b' -> 'c' -> 'a'"},
        BadCase{sim(data("bad_negative.json"), "k80x1", "cpu"),
                data("bad_negative.json") + ": ops[0] ('a').flops: expected a non-negative number, got -5"},
        BadCase{sim(data("bad_dangling.json"), "k80x1", "cpu"),
                data("bad_dangling.json") + ": ops[1] ('b').inputs[1]: dangling edge: names no tensor 'x:9'"},
        BadCase{sim(data("fork.json"), data("toy_cluster.json"), data("bad_unknown_op.csv")),
                data("bad_unknown_op.csv") + ":4: unknown op 'zz' (graph 'fork')"},
        BadCase{sim(data("fork.json"), data("toy_cluster.json"), data("bad_unknown_device.json")),
                data("bad_unknown_device.json") + ": b: op 'b': unknown device '/gpu:7' (cluster 'toy' has /cpu:0, /gpu:0, /gpu:1)"},
        BadCase{sim(data("fork.json"), data("toy_cluster.json"), data("bad_missing_op.csv")),
                data("bad_missing_op.csv") +
                    ": op 'c' has no device (neither it nor any op of its co-location group 'c' is in the file)"},
        BadCase{sim(data("fork.json"), data("bad_empty_cluster.json"), "cpu"),
                data("bad_empty_cluster.json") + ": devices: a cluster needs at least one device"},
        BadCase{sim(data("fork.json"), data("bad_negative_memory_cluster.json"), "cpu"),
                data("bad_negative_memory_cluster.json") + ": devices[1].memory_bytes: expected a positive integer, got -1"},
        BadCase{sim(data("fork.json"), data("bad_disconnected_cluster.json"), "cpu"),
                data("bad_disconnected_cluster.json") + ": links: no route from device '/cpu:0' to device '/gpu:0'"},
        BadCase{sim(data("no_such_file.json"), "k80x1", "cpu"), data("no_such_file.json") + ": cannot read file"},
        BadCase{sim(data("fork.json"), "k80x1", "hef"),
                "--placement 'hef': no such file, and no such method (known: cpu, single-gpu, scotch, mincut, expert, round-robin, random, metis, heft, m-topo, m-etf, m-sct, local-search, exhaustive)"},
        BadCase{sim("zoo:nope", "k80x1", "cpu"), "unknown zoo model 'nope' (known: rnnlm, nmt, inception_v3, resnet50, transformer, layered)"},
        BadCase{sim("zoo:layered:layers=0", "k80x1", "cpu"), "zoo:layered: option layers=0: expected an integer in [1, 1000000]"},
        BadCase{"simulate --graph " + data("fork.json"), "missing required option '--cluster CL' (see --help)"},
        BadCase{"simulate --bogus", "unknown option '--bogus' (see --help)"},
        BadCase{"frobnicate", "unknown command 'frobnicate' (see devplace --help)"}));

}  // namespace

namespace {

// Every imported source simulates end to end on the paper's 4-GPU machine.
class ImportedSource : public ::testing::TestWithParam<std::string> {};

TEST_P(ImportedSource, SimulatesWithEveryBaselinePlacement) {
  const std::string src = std::string(DEVPLACE_TESTDATA_DIR) + "/" + GetParam();
  const bool onnx = GetParam().find(".onnx") != std::string::npos;
  double cpu = 0, gpu = 0;
  for (const char* placement : {"cpu", "single-gpu", "expert"}) {
    CliRun r = devplace("simulate --graph " + src + (onnx ? " --training" : "") + " --cluster k80x4 --placement " +
                        placement + " --json");
    ASSERT_EQ(r.exit_code, 0) << placement << ": " << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_FALSE(j["oom"].get<bool>()) << placement;
    EXPECT_GT(j["step_time_s"].get<double>(), 0) << placement;
    if (std::string(placement) == "cpu") cpu = j["step_time_s"].get<double>();
    if (std::string(placement) == "single-gpu") gpu = j["step_time_s"].get<double>();
  }
  // A real model runs faster on a K80 die than on the host; the two tiny
  // fixtures (attention, lstm: ~1 ms) are launch-bound, where the CPU's
  // smaller per-op overhead rightly wins.
  if (cpu > 0.01) EXPECT_LT(gpu, cpu);
}

INSTANTIATE_TEST_SUITE_P(
    Files, ImportedSource,
    ::testing::Values("io/testdata/pipedream/alexnet/graph.txt", "io/testdata/pipedream/gnmt/graph.txt",
                      "io/testdata/pipedream/resnet18/graph.txt", "io/testdata/pipedream/resnet50/graph.txt",
                      "io/testdata/pipedream/squeezenet1_0/graph.txt", "io/testdata/pipedream/vgg16/graph.txt",
                      "io/testdata/onnx/resnet18.onnx", "io/testdata/onnx/mobilenet_v2.onnx",
                      "io/testdata/onnx/attention.onnx", "io/testdata/onnx/lstm.onnx"));

TEST(Cli, ConvertWritesNativeJsonThatReadsBack) {
  const fs::path out = temp_file("converted.json");
  CliRun c = devplace("convert --graph " + std::string(DEVPLACE_TESTDATA_DIR) + "/io/testdata/pipedream/gnmt/graph.txt --out " +
                      out.string());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  CliRun a = devplace("inspect --graph " + std::string(DEVPLACE_TESTDATA_DIR) + "/io/testdata/pipedream/gnmt/graph.txt --json");
  CliRun b = devplace("inspect --graph " + out.string() + " --json");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  nlohmann::json ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  for (const char* key : {"ops", "edges", "flops", "parameter_bytes", "tensor_bytes"}) EXPECT_EQ(ja[key], jb[key]) << key;
  fs::remove(out);
}

TEST(Cli, ZooListHasEveryModel) {
  CliRun r = devplace("zoo list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> names;
  for (const auto& m : nlohmann::json::parse(r.out)) names.insert(m["name"].get<std::string>());
  for (const char* m : {"rnnlm", "nmt", "inception_v3", "resnet50", "transformer"}) EXPECT_TRUE(names.count(m)) << m;
}

}  // namespace
