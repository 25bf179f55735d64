// The devplace binary end to end: hand-checked step times, the JSON output,
// the Chrome trace, and one test per kind of bad input (its one-line message
// and exit code 2).
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../test_cli.h"
#include "cli/method_comparison.h"
#include "common/file_io.h"

namespace {

namespace fs = std::filesystem;

using devplace::testing::CliRun;
using devplace::testing::devplace;
using devplace::testing::slurp;
using devplace::testing::temp_file;

std::string data(const std::string& name) { return std::string(DEVPLACE_TESTDATA_DIR) + "/cli/testdata/" + name; }

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
  for (const char* cmd : {"--help", "inspect --help", "simulate --help", "place --help", "compare --help", "cluster --help",
                          "methods --help"}) {
    CliRun r = devplace(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("usage: devplace"), std::string::npos) << cmd;
  }
  // The learned methods' options come after the command's own, under a
  // heading that names the methods that take them.
  const std::string help = devplace("simulate --help").out;
  const size_t section = help.find("\noptions of the methods rl, hierarchical:\n");
  ASSERT_NE(section, std::string::npos) << help;
  EXPECT_GT(help.find("  --checkpoint FILE"), section);
  EXPECT_LT(help.find("  --seed N"), section);
  EXPECT_LT(help.find("  --help"), section);
}

TEST(Cli, PretrainWritesAPolicyThatPretrainedAndInitPlaceWith) {
  const std::string policy = temp_file("cli_pretrained.pt").string();
  CliRun trained = devplace("pretrain --corpus tiny --updates 12 --policy-hidden 16 --out " + policy);
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  EXPECT_NE(trained.out.find("geometric mean best/fast"), std::string::npos) << trained.out;
  EXPECT_NE(trained.out.find("zoo:layered:layers=6,width=3,hidden=512 on hetero"), std::string::npos) << trained.out;
  ASSERT_TRUE(fs::is_regular_file(policy));
  CliRun placed = devplace("place --graph zoo:layered --cluster k80x4 --method pretrained --policy " + policy + " --json");
  ASSERT_EQ(placed.exit_code, 0) << placed.err;
  nlohmann::json j = nlohmann::json::parse(placed.out);
  EXPECT_EQ(j["method"], "pretrained");
  EXPECT_EQ(j["evaluations"].get<int64_t>(), 64);  // the greedy decode and 63 samples
  CliRun tuned = devplace("place --graph zoo:layered --cluster k80x4 --method rl --init " + policy + " --evaluations 48 --json");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  j = nlohmann::json::parse(tuned.out);
  EXPECT_EQ(j["method"], "pretrained>rl");
  EXPECT_LE(j["evaluations"].get<int64_t>(), 48);
  // The same seed, the same placement.
  CliRun again = devplace("place --graph zoo:layered --cluster k80x4 --method pretrained --policy " + policy + " --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const nlohmann::json first = nlohmann::json::parse(placed.out), second = nlohmann::json::parse(again.out);
  EXPECT_EQ(first["step_time_s"], second["step_time_s"]);
  EXPECT_EQ(first["ops_per_device"], second["ops_per_device"]);
}

// The corpora's split is by model family: no family is both trained on
// and held out, and the held-out ones are the paper's three.
TEST(Cli, PretrainCorporaSplitByFamilyAndTheirFilesExist) {
  auto listed = [](const std::string& corpus) {
    CliRun run = devplace("pretrain --corpus " + corpus + " --list");
    EXPECT_EQ(run.exit_code, 0) << run.err;
    std::map<std::string, std::vector<std::string>> graphs;  // family -> graphs
    std::istringstream lines(run.out);
    std::string family, cluster, graph;
    while (lines >> family >> cluster >> graph) {
      graphs[family].push_back(graph);
      std::string rest;
      std::getline(lines, rest);
    }
    return graphs;
  };
  const auto train = listed("train"), held_out = listed("held-out");
  std::set<std::string> held_out_families;
  for (const auto& [family, graphs] : held_out) held_out_families.insert(family);
  EXPECT_EQ(held_out_families, (std::set<std::string>{"inception", "nmt", "rnnlm"}));
  int files = 0;
  for (const auto* corpus : {&train, &held_out}) {
    for (const auto& [family, graphs] : *corpus) {
      if (corpus == &train) {
        EXPECT_EQ(held_out.count(family), 0u) << family << " is trained on and held out";
      }
      for (const std::string& g : graphs) {
        if (g.rfind("zoo:", 0) == 0) continue;
        ++files;
        EXPECT_TRUE(fs::is_regular_file(std::string(DEVPLACE_TESTDATA_DIR) + "/../" + g)) << g;
      }
    }
  }
  EXPECT_GE(train.size(), 8u);
  EXPECT_GE(files, 8 * 4 + 2 * 3);  // the ONNX fixtures and PipeDream profiles, on every cluster
}

// A corpus file's optional 'training' expands a forward-only ONNX file into
// a training step, as --training does.
TEST(Cli, PretrainCorpusFileExpandsForwardGraphsOnRequest) {
  const std::string onnx = std::string(DEVPLACE_TESTDATA_DIR) + "/io/testdata/onnx/attention.onnx";
  const std::string corpus = temp_file("cli_corpus.txt").string();
  ASSERT_TRUE(devplace::write_text_file(corpus, "# one forward graph and its training step\n" + onnx + " k80x2 attention\n" + onnx + " k80x2 attention training\n").ok());
  CliRun listed = devplace("pretrain --corpus " + corpus + " --list");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("attention.onnx (training step)"), std::string::npos) << listed.out;
  const std::string policy = temp_file("cli_corpus.pt").string();
  CliRun trained = devplace("pretrain --corpus " + corpus + " --updates 2 --policy-hidden 8 --out " + policy);
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  // Two problems, the forward graph and the training step.
  EXPECT_NE(trained.out.find("attention.onnx on k80x2 "), std::string::npos) << trained.out;
  EXPECT_NE(trained.out.find("attention.onnx (training step) on k80x2 "), std::string::npos) << trained.out;
  ASSERT_TRUE(devplace::write_text_file(corpus, onnx + " k80x2 attention trainingX\n").ok());
  CliRun bad = devplace("pretrain --corpus " + corpus + " --out " + policy);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find(corpus + ":1: expected 'GRAPH CLUSTER FAMILY [training]'"), std::string::npos) << bad.err;
}

struct BadCase {
  std::string args;
  std::string message;  // the whole stderr line after "devplace: "
  // The message is only the line's start: it goes on listing the registered
  // methods, a list that grows as placers are added.
  bool prefix = false;
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << "devplace " << c.args; }

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, OneLineNamingThePlaceAndExitCode2) {
  CliRun r = devplace(GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  if (GetParam().prefix) {
    EXPECT_EQ(r.err.rfind("devplace: " + GetParam().message, 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
  } else {
    EXPECT_EQ(r.err, "devplace: " + GetParam().message + "\n");
  }
  EXPECT_TRUE(r.out.empty()) << r.out;
}

std::string sim(const std::string& graph, const std::string& cluster, const std::string& placement) {
  return "simulate --graph " + graph + " --cluster " + cluster + " --placement " + placement;
}

std::string place(const std::string& method) { return "place --graph " + data("fork.json") + " --cluster k80x2 --method " + method; }
std::string compare(const std::string& options) { return "compare --graph " + data("fork.json") + " --cluster k80x2 " + options; }

INSTANTIATE_TEST_SUITE_P(
    Cli, BadInput,
    ::testing::Values(
        BadCase{sim(data("bad_malformed.json"), "k80x1", "cpu"),
                data("bad_malformed.json") + ":5:34: malformed JSON: syntax error while parsing object key - unexpected '}'; "
                                             "expected string literal"},
        BadCase{sim(data("bad_missing_field.json"), "k80x1", "cpu"),
                data("bad_missing_field.json") + ": ops[0] ('a').type: missing required field"},
        BadCase{sim(data("bad_cycle.json"), "k80x1", "cpu"), data("bad_cycle.json") + ": cycle: 'a' -> 'b' -> 'c' -> 'a'"},
        // --input-shape: malformed, repeated, or for a format without dynamic inputs.
        BadCase{"inspect --graph zoo:rnnlm --input-shape x=0x16",
                "--input-shape: expected NAME=DxDx... (positive dimensions), comma-separated, got 'x=0x16'"},
        BadCase{"inspect --graph zoo:rnnlm --input-shape x=3x16,",
                "--input-shape: expected NAME=DxDx... (positive dimensions), comma-separated, got ''"},
        BadCase{"inspect --graph zoo:rnnlm --input-shape x=1,x=2", "--input-shape: input 'x' is given twice"},
        BadCase{"inspect --graph " + data("fork.json") + " --input-shape x=1",
                "--input-shape: " + data("fork.json") + " is a devplace graph JSON (docs/formats.md), whose inputs have fixed "
                "shapes (it applies to ONNX models)"},
        // An op name that is not UTF-8 (JSON output could not hold it).
        BadCase{"convert --graph " + data("bad_utf8/graph.txt") + " --out x.json",
                data("bad_utf8/graph.txt") + ": op 'node\\xff2' (#1): name: not valid UTF-8"},
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
        // Hostile files: nesting that would overflow the stack, an endless
        // device, and what follows from them, for each reader.
        BadCase{sim(data("bad_deep.json"), "k80x1", "cpu"), data("bad_deep.json") + ":1:268: JSON nested deeper than 256 levels"},
        BadCase{sim(data("fork.json"), data("bad_deep.json"), "cpu"), data("bad_deep.json") + ":1:268: JSON nested deeper than 256 levels"},
        BadCase{sim(data("fork.json"), "k80x1", data("bad_deep.json")), data("bad_deep.json") + ":1:268: JSON nested deeper than 256 levels"},
        BadCase{sim(data("fork.json"), "/dev/zero", "cpu"), "/dev/zero: not a text file (a NUL byte at offset 0)"},
        BadCase{sim(data("fork.json"), "k80x1", "/dev/zero"), "/dev/zero: not a text file (a NUL byte at offset 0)"},
        // Sizes that would overflow a byte sum or memory.
        BadCase{sim(data("bad_huge_state.json"), "k80x1", "cpu"),
                data("bad_huge_state.json") + " on k80x1: graph 'fork with huge state': its parameters, optimizer state and tensors add up to more than 2^60 bytes (1 EiB); a byte count is wrong"},
        BadCase{sim("zoo:layered:layers=1000000,width=100000", "k80x1", "cpu"),
                "zoo:layered: layers x width = 1000000 x 100000 is more than the 1000000 this model builds (the graph would not fit in memory)"},
        BadCase{sim(data("bad_duplicate_key.json"), "k80x1", "cpu"), data("bad_duplicate_key.json") + ":8:52: duplicate key \"inputs\" in one object"},
        // Honest output: no expert placement for a graph without layers (it would be single-gpu's).
        BadCase{place("expert"), "expert does not apply: the graph marks no layers (the papers' expert placement splits the layers over the GPUs)"},
        // Arguments: nothing dropped silently.
        BadCase{sim(data("fork.json"), "k80x1", "expert m-etf"), "unexpected argument 'm-etf' (options start with --; see --help)"},
        BadCase{sim(data("fork.json"), "k80x1", "expert --placement m-etf"), "option '--placement' given twice"},
        // Outputs are checked before the work.
        BadCase{place("rl --out /no/such/folder/p.json"), "--out: /no/such/folder/p.json: the folder /no/such/folder does not exist"},
        BadCase{place("rl --checkpoint /no/such/rl.ckpt"), "--checkpoint: /no/such/rl.ckpt: the folder /no/such does not exist"},
        BadCase{place("local-search --report /no/r.html"), "--report: /no/r.html: the folder /no does not exist"},
        BadCase{sim(data("fork.json"), "k80x1", "cpu --trace " + data("")), "--trace: " + data("") + ": is a folder, not a file"},
        BadCase{"convert --graph zoo:rnnlm --out /no/g.json", "--out: /no/g.json: the folder /no does not exist"},
        BadCase{sim(data("fork.json"), "k80x1", "hef"),
                "--placement 'hef': no such file, and no such method (known: cpu, single-gpu, scotch, mincut, expert, round-robin, random, metis, heft, m-topo, m-etf, m-sct, local-search, random-search, exhaustive, rl, hierarchical, pretrained)"},
        BadCase{sim("zoo:nope", "k80x1", "cpu"), "unknown zoo model 'nope' (known: rnnlm, nmt, inception_v3, resnet50, transformer, layered, recurrent)"},
        BadCase{sim("zoo:layered:layers=0", "k80x1", "cpu"), "zoo:layered: option layers=0: expected an integer in [1, 1000000]"},
        BadCase{"simulate --graph " + data("fork.json"), "missing required option '--cluster CL' (see --help)"},
        BadCase{"simulate --bogus", "unknown option '--bogus' (see --help)"},
        BadCase{"frobnicate", "unknown command 'frobnicate' (see devplace --help)"},
        BadCase{place("nope"), "--method: unknown placer 'nope' (known: cpu, ", true},
        BadCase{compare("--methods cpu,nope"), "--methods: unknown placer 'nope' (known: cpu, ", true},
        BadCase{compare("--methods cpu,cpu"), "--methods: 'cpu' is listed twice"},
        BadCase{compare("--methods cpu,"), "--methods: expected comma-separated method names, got 'cpu,'"},
        BadCase{compare("--seeds 1,x"), "--seeds: expected positive integers separated by commas, got '1,x' ('x')"},
        BadCase{compare("--seeds 0"), "--seeds: expected positive integers separated by commas, got '0' ('0')"},
        BadCase{compare("--seeds 2,3,2"), "--seeds: seed 2 is given twice in '2,3,2'"},
        BadCase{compare("--seeds 1,2 --seed 3"), "--seeds runs every seed it names: drop --seed"},
        BadCase{"compare --suite paper --seeds 1,2 --reuse x.json", "--reuse cannot be combined with --seeds: earlier answers are one seed's"},
        BadCase{place("cpu --budget -1"), "--budget: expected a positive number of seconds, got '-1'"},
        BadCase{compare("--budget 1s"), "--budget: expected a positive number of seconds, got '1s'"},
        BadCase{sim(data("fork.json"), "k80x1", "cpu --budget 0"), "--budget: expected a positive number of seconds, got '0'"},
        BadCase{place("cpu --evaluations 0"), "--evaluations: expected a positive integer, got '0'"},
        BadCase{place("cpu --grouping chains"), "--grouping: unknown grouping 'chains' (known: paper, colocation)"},
        BadCase{"place --graph " + data("fork.json") + " --cluster k80x2", "missing required option '--method NAME' (see --help)"},
        BadCase{"compare --graph " + data("fork.json"), "missing required option '--cluster CL' (see --help)"},
        BadCase{"compare --suite nope", "--suite: expected 'paper', got 'nope'"},
        BadCase{"compare --suite paper --graph zoo:rnnlm", "--suite cannot be combined with --graph or --cluster"},
        BadCase{"compare --suite paper --cluster k80x4", "--suite cannot be combined with --graph or --cluster"},
        BadCase{"compare --graph zoo:rnnlm --cluster k80x2 --jobs 2",
                "--jobs runs the rows of a --suite side by side; one graph runs in one process"},
        BadCase{"compare --suite paper --jobs 0", "--jobs: expected a positive integer, got 0"},
        BadCase{"compare --suite paper --jobs 2 --report r.html",
                "--report cannot be combined with --jobs: the rows' processes keep their placements (run the suite with --jobs 1)"},
        // The learned methods' training options.
        BadCase{place("rl --iterations 0"), "--iterations: expected a positive integer (at most 100000000), got '0'"},
        BadCase{place("rl --iterations 2.5"), "--iterations: expected a positive integer (at most 100000000), got '2.5'"},
        BadCase{compare("--methods cpu,rl --iterations many"), "--iterations: expected a positive integer (at most 100000000), got 'many'"},
        BadCase{place("rl --checkpoint-every -3"), "--checkpoint-every: expected a positive integer (at most 100000000), got '-3'"},
        BadCase{place("hierarchical --checkpoint-every 10x"), "--checkpoint-every: expected a positive integer (at most 100000000), got '10x'"},
        BadCase{place("rl --threads 0"), "--threads: expected a positive integer (at most 1024), got '0'"},
        BadCase{place("rl --threads 5000"), "--threads: expected a positive integer (at most 1024), got '5000'"},
        BadCase{sim(data("fork.json"), "k80x1", "rl --threads=two"), "--threads: expected a positive integer (at most 1024), got 'two'"},
        // Options of methods that do not run are refused before any work.
        BadCase{place("expert --checkpoint x.ckpt"), "--checkpoint does not apply to --method expert"},
        BadCase{place("cpu --iterations 5"), "--iterations does not apply to --method cpu"},
        BadCase{compare("--methods cpu,heft --recipe paper"), "--recipe does not apply to the methods run (cpu, heft)"},
        BadCase{compare("--iterations 5"), "--iterations does not apply to the methods run (cpu, single-gpu, scotch, mincut, expert, round-robin, random, metis, heft, m-topo, m-etf, m-sct, local-search, random-search)"},
        BadCase{sim(data("fork.json"), "k80x1", data("fork_split.json") + " --threads 2"), "--threads does not apply: no placement method runs"},
        BadCase{place("rl --resume " + data("no_such.ckpt")), "--resume: " + data("no_such.ckpt") + ": no such checkpoint file"},
        BadCase{place("rl --resume " + data("")), "--resume: " + data("") + ": no such checkpoint file"},  // a folder
        BadCase{place("rl --checkpoint="), "--checkpoint: expected a file name, got ''"},
        BadCase{place("rl --warm-start best"), "--warm-start: expected 'search', 'fast' or 'none', got 'best'"},
        BadCase{place("rl --learning-rate 0"), "--learning-rate: expected a number in (0, 10], got '0'"},
        BadCase{place("rl --learning-rate 1e-3x"), "--learning-rate: expected a number in (0, 10], got '1e-3x'"},
        BadCase{place("rl --lr-decay 1.01"), "--lr-decay: expected a factor in (0, 1], got '1.01'"},
        BadCase{place("rl --warm-start-confidence 0.5"), "--warm-start-confidence needs --warm-start search or fast"},
        BadCase{place("rl --warm-start fast --warm-start-confidence 1"), "--warm-start-confidence: expected a probability in (0, 1), got '1'"},
        BadCase{place("rl --entropy-weight -1"), "--entropy-weight: expected a number in [0, 100], got '-1'"},
        BadCase{place("rl --entropy-half-life 0"),
                "--entropy-half-life: expected a positive integer (at most 100000000), got '0'"},
        BadCase{place("rl --entropy-floor 1e3"), "--entropy-floor: expected a number in [0, 100], got '1e3'"},
        BadCase{place("rl --entropy-floor-weight x"), "--entropy-floor-weight: expected a number in [0, 100], got 'x'"},
        BadCase{place("rl --cool-to 0"), "--cool-to: expected a temperature in [0.01, 1], got '0'"},
        BadCase{place("rl --cool-to 2"), "--cool-to: expected a temperature in [0.01, 1], got '2'"},
        BadCase{place("rl --risk-seeking 1.5"), "--risk-seeking: expected a share of the samples in [0, 1], got '1.5'"},
        BadCase{place("rl --speed-prior -1"), "--speed-prior: expected a number in [0, 100], got '-1'"},
        BadCase{place("rl --load-input yes"), "--load-input: expected 'on' or 'off', got 'yes'"},
        BadCase{place("rl --restart-after 0"), "--restart-after: expected a positive integer (at most 100000000), got '0'"},
        BadCase{place("rl --elite-weight nan"), "--elite-weight: expected a number in [0, 100], got 'nan'"},
        BadCase{place("rl --stickiness 1e9"), "--stickiness: expected a number in [0, 100], got '1e9'"},
        BadCase{place("rl --neighbours yes"), "--neighbours: expected 'on' or 'off', got 'yes'"},
        BadCase{place("rl --affinity -2"), "--affinity: expected a number in [0, 100], got '-2'"},
        BadCase{place("rl --neighbours off --affinity 3"), "--affinity needs --neighbours on"},
        // Pretraining and the pretrained policy.
        BadCase{place("pretrained --iterations 5"), "--iterations does not apply to --method pretrained"},
        BadCase{place("rl --init /no/such/policy.pt"), "--init: /no/such/policy.pt: no such policy file"},
        BadCase{place("rl --init-temperature 2"), "--init-temperature needs --init"},
        BadCase{place("rl --init pretrained --init-temperature 0.01"), "--init-temperature: expected a number in [0.1, 100], got '0.01'"},
        BadCase{place("rl --init pretrained --init-temperature hot"), "--init-temperature: expected a number in [0.1, 100], got 'hot'"},
        BadCase{place("rl --init pretrained --policy-hidden 8"),
                "--init and --policy-hidden do not go together: the pretrained network fixes its own shape and start"},
        BadCase{place("pretrained --policy /no/such/policy.pt"), "--policy: /no/such/policy.pt: no such policy file"},
        BadCase{place("pretrained --policy " + data("fork.json")), data("fork.json") + ": not a devplace policy file (cannot read it)"},
        BadCase{"pretrain --corpus nosuch --out p.pt",
                "--corpus: 'nosuch' is neither a built-in corpus (train, held-out, tiny) nor a file"},
        BadCase{"pretrain --corpus tiny", "--out FILE is required (the policy file to write)"},
        BadCase{"pretrain --corpus " + data("bad_corpus.txt") + " --out p.pt", data("bad_corpus.txt") + ":2: expected 'GRAPH CLUSTER FAMILY [training]'"},
        BadCase{"pretrain --corpus " + data("bad_corpus_graph.txt") + " --out p.pt", "corpus problem 1 (zoo:nosuch on k80x2): ", true},
        BadCase{"pretrain --corpus tiny --out p.pt --updates 0", "--updates: expected an integer in [1, 100000000], got 0"},
        BadCase{"pretrain --corpus tiny --out p.pt --encoder gnn", "--encoder: expected sequence or graph, got 'gnn'"},
        BadCase{"pretrain --corpus tiny --out p.pt --graph-rounds 3", "--graph-rounds: only with --encoder graph"},
        BadCase{"pretrain --corpus tiny --out p.pt --resume /no/such.ckpt", "--resume: /no/such.ckpt: no such checkpoint file"},
        BadCase{"pretrain --corpus tiny --out p.pt --updates 10 --average-from 10", "--average-from: expected an integer in [0, 9], got 10"},
        BadCase{place("rl --samples 1"), "--samples: expected at least 2 (samples are compared with each other), got '1'"},
        BadCase{place("rl --policy-hidden 0"), "--policy-hidden: expected a positive integer (at most 4096), got '0'"},
        BadCase{place("hierarchical --attention dot"), "--attention: expected 'additive' or 'multiplicative', got 'dot'"},
        BadCase{place("hierarchical --grouper-prior metis"), "--grouper-prior: expected 'clusters', 'order' or 'none', got 'metis'"},
        BadCase{place("hierarchical --speed-prior 1"), "--speed-prior applies to --method rl only"},
        BadCase{place("rl --grouper-prior order"), "--grouper-prior applies to --method hierarchical only (rl has no grouper)"},
        BadCase{place("rl --training-log="), "--training-log: expected a file name, got ''"},
        BadCase{place("rl --resume="), "--resume: expected a file name, got ''"},
        BadCase{place("rl --checkpoint"), "option '--checkpoint' needs a value FILE"},
        BadCase{"compare --suite paper --methods rl --checkpoint rl.ckpt",
                "--checkpoint: names one file, but this comparison trains 6 learned runs (use devplace place, or one learned "
                "method on one graph)"},
        BadCase{"compare --suite paper --methods cpu --reuse /nonexistent/suite.json", "/nonexistent/suite.json: ", true},
        BadCase{"compare --suite paper --methods cpu --reuse " + data("fork.json"),
                data("fork.json") + ": not a devplace compare --json answer (no \"rows\" or \"results\")"},
        BadCase{"compare --suite paper --methods cpu --reuse " + data("reuse_bad_row.json"),
                data("reuse_bad_row.json") + ": rows[1]: not a devplace compare --json answer ([json.exception.type_error.302] type "
                "must be string, but is number)"},
        BadCase{"compare --suite paper --methods cpu --reuse " + data("reuse_rows_not_array.json"),
                data("reuse_rows_not_array.json") + ": rows: not a devplace compare --json answer (not an array)"},
        BadCase{"compare --suite paper --methods cpu --reuse a.json,", "--reuse: expected FILE[,FILE...], got 'a.json,'"},
        BadCase{"compare --graph zoo:rnnlm --cluster k80x2 --methods cpu --reuse " + data("fork.json"),
                data("fork.json") + ": not a devplace compare --json answer (no \"rows\" or \"results\")"},
        BadCase{"compare --graph zoo:rnnlm --cluster k80x2 --reuse nosuch.json", "nosuch.json: cannot read file"},
        BadCase{"compare --suite paper --methods cpu,rl --training-log rl.csv",
                "--training-log: names one file, but this comparison trains 6 learned runs (use devplace place, or one learned "
                "method on one graph)"}));

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
  if (cpu > 0.01) {
    EXPECT_LT(gpu, cpu);
  }
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

// convert --out FILE.dpg writes the binary form; inspect and simulate read it as they read the JSON.
TEST(Cli, ConvertWritesABinaryGraphThatCommandsRead) {
  const fs::path json = temp_file("converted_b.json"), binary = temp_file("converted.dpg");
  const std::string src = std::string(DEVPLACE_TESTDATA_DIR) + "/io/testdata/pipedream/gnmt/graph.txt";
  ASSERT_EQ(devplace("convert --graph " + src + " --out " + json.string()).exit_code, 0);
  CliRun c = devplace("convert --graph " + src + " --out " + binary.string());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (const char* command : {"inspect", "simulate --cluster k80x4 --placement round-robin"}) {
    CliRun a = devplace(std::string(command) + " --graph " + json.string() + " --json");
    CliRun b = devplace(std::string(command) + " --graph " + binary.string() + " --json");
    ASSERT_EQ(b.exit_code, 0) << command << ": " << b.err;
    EXPECT_EQ(nlohmann::json::parse(a.out), nlohmann::json::parse(b.out)) << command;
  }
  // A damaged file: one line, the file and the offset, exit code 2.
  std::string bytes = devplace::read_binary_file(binary.string(), 1 << 30).value();
  bytes.resize(bytes.size() / 2);
  ASSERT_TRUE(devplace::write_text_file(binary.string(), bytes).ok());
  CliRun bad = devplace("inspect --graph " + binary.string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find(binary.string() + ": offset "), std::string::npos) << bad.err;
  fs::remove(json);
  fs::remove(binary);
}

TEST(Cli, ZooListHasEveryModel) {
  CliRun r = devplace("zoo list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> names;
  for (const auto& m : nlohmann::json::parse(r.out)) names.insert(m["name"].get<std::string>());
  for (const char* m : {"rnnlm", "nmt", "inception_v3", "resnet50", "transformer"}) EXPECT_TRUE(names.count(m)) << m;
}

// A small NMT (4 + 4 steps, hidden 256) keeps the place and compare tests fast.
const char kSmallNmt[] = "zoo:nmt:steps=4,hidden=256,vocab=1000";
// A future search method gets little time in compare's tests.
const char kShortBudget[] = " --budget 0.5 --evaluations 20";
// Step time / lower bound, with room for rounding where the bound is tight.
constexpr double kAtLeastOne = 1 - 1e-9;

TEST(Cli, PlaceSingleGpuMatchesSimulate) {
  CliRun p = devplace(std::string("place --graph ") + kSmallNmt + " --cluster k80x4 --method single-gpu --json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  CliRun s = devplace(std::string("simulate --graph ") + kSmallNmt + " --cluster k80x4 --placement single-gpu --json");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  nlohmann::json jp = nlohmann::json::parse(p.out), js = nlohmann::json::parse(s.out);
  EXPECT_EQ(jp["method"], "single-gpu");
  EXPECT_EQ(jp["ops"], js["ops"]);
  EXPECT_GT(jp["groups"].get<int>(), 0);
  EXPECT_LE(jp["groups"].get<int>(), jp["ops"].get<int>());
  EXPECT_EQ(jp["step_time_s"], js["step_time_s"]);
  EXPECT_EQ(jp["oom"], js["oom"]);
  EXPECT_EQ(jp["single_gpu_step_time_s"], js["step_time_s"]);
  EXPECT_DOUBLE_EQ(jp["speedup_over_single_gpu"].get<double>(), 1.0);
  EXPECT_GE(jp["ratio_to_lower_bound"].get<double>(), kAtLeastOne);
  const nlohmann::json& lb = jp["lower_bound"];
  EXPECT_DOUBLE_EQ(jp["lower_bound_s"].get<double>(), std::max({lb["critical_path_s"].get<double>(), lb["load_s"].get<double>(),
                                                                 lb["group_s"].get<double>()}));
  EXPECT_DOUBLE_EQ(jp["ratio_to_lower_bound"].get<double>(), jp["step_time_s"].get<double>() / jp["lower_bound_s"].get<double>());
  ASSERT_EQ(jp["peak_memory_bytes"].size(), js["devices"].size());
  for (const auto& d : js["devices"]) EXPECT_EQ(jp["peak_memory_bytes"][d["name"].get<std::string>()], d["peak_memory_bytes"]);
  EXPECT_EQ(jp["ops_per_device"]["/gpu:0"], js["devices"][1]["num_ops"]);
}

TEST(Cli, PlaceOutWritesAPlacementThatSimulateAccepts) {
  for (const char* name : {"placed.json", "placed.csv"}) {
    const fs::path out = temp_file(name);
    CliRun p = devplace(std::string("place --graph ") + kSmallNmt + " --cluster k80x4 --method expert --out " + out.string());
    ASSERT_EQ(p.exit_code, 0) << p.err;
    EXPECT_NE(p.out.find("lower bound"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("placement written to " + out.string()), std::string::npos) << p.out;
    CliRun pj = devplace(std::string("place --graph ") + kSmallNmt + " --cluster k80x4 --method expert --json");
    CliRun s = devplace(std::string("simulate --graph ") + kSmallNmt + " --cluster k80x4 --placement " + out.string() + " --json");
    ASSERT_EQ(s.exit_code, 0) << name << ": " << s.err;
    EXPECT_EQ(nlohmann::json::parse(pj.out)["step_time_s"], nlohmann::json::parse(s.out)["step_time_s"]) << name;
    fs::remove(out);
  }
}

TEST(Cli, CompareRunsEveryDefaultMethodOnce) {
  CliRun methods = devplace("methods");
  CliRun r = devplace(std::string("compare --graph ") + kSmallNmt + " --cluster k80x4" + kShortBudget + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const double bound = j["lower_bound_s"].get<double>();
  const double best = j["best_paper_baseline_s"].get<double>();
  EXPECT_GT(bound, 0);
  std::multiset<std::string> seen;
  bool best_has_speedup_one = false;
  for (const auto& m : j["results"]) {
    const std::string name = m["method"].get<std::string>();
    seen.insert(name);
    EXPECT_NE(methods.out.find(name + " "), std::string::npos) << name;  // a registered method
    if (m.contains("error")) continue;  // a future method may not handle every graph
    EXPECT_GT(m["step_time_s"].get<double>(), 0) << name;
    EXPECT_GE(m["ratio_to_lower_bound"].get<double>(), kAtLeastOne) << name;
    EXPECT_GE(m["evaluations"].get<int64_t>(), 0) << name;
    if (m["oom"].get<bool>()) continue;
    EXPECT_DOUBLE_EQ(m["speedup_over_paper_baselines"].get<double>(), best / m["step_time_s"].get<double>()) << name;
    if (m["step_time_s"].get<double>() == best) best_has_speedup_one = m["speedup_over_paper_baselines"].get<double>() == 1.0;
  }
  EXPECT_TRUE(best_has_speedup_one) << r.out;
  // The methods registered today, none of them a reference method; each once.
  for (const char* m : {"cpu", "single-gpu", "expert", "round-robin"}) EXPECT_EQ(seen.count(m), 1u) << m;
  // Nor a learned one: they train for minutes, so run only when named.
  for (const char* m : {"exhaustive", "rl", "hierarchical"}) EXPECT_EQ(seen.count(m), 0u) << m;
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), seen.size());
  for (const auto& m : j["results"]) {
    const std::string name = m["method"].get<std::string>();
    if (name != "cpu" && name != "single-gpu" && name != "expert") continue;
    EXPECT_FALSE(m.contains("error")) << name;
    if (!m["oom"].get<bool>()) {
      EXPECT_LE(best, m["step_time_s"].get<double>()) << name;
    }
  }

  CliRun text = devplace(std::string("compare --graph ") + kSmallNmt + " --cluster k80x4 --methods expert,cpu" + kShortBudget);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("lower bound"), std::string::npos) << text.out;
  EXPECT_LT(text.out.find("\nexpert "), text.out.find("\ncpu ")) << text.out;  // in the order given
}

TEST(Cli, CompareGivesEverySearchingMethodTheDefaultBudget) {
  const std::string cmd = std::string("compare --graph ") + kSmallNmt + " --cluster k80x4 --methods expert,random-search,local-search";
  CliRun r = devplace(cmd + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["budget"]["evaluations"].get<int64_t>(), devplace::cli::kDefaultCompareEvaluations);
  EXPECT_TRUE(j["budget"]["seconds"].is_null());
  ASSERT_EQ(j["results"].size(), 3u);
  EXPECT_EQ(j["results"][0]["evaluations"].get<int64_t>(), 0);  // expert does not search
  EXPECT_EQ(j["results"][1]["evaluations"].get<int64_t>(), devplace::cli::kDefaultCompareEvaluations);
  EXPECT_LE(j["results"][2]["evaluations"].get<int64_t>(), devplace::cli::kDefaultCompareEvaluations);
  EXPECT_GT(j["results"][2]["evaluations"].get<int64_t>(), 0);

  CliRun text = devplace(cmd + " --evaluations 30");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("budget: 30 evaluations per searching method (local-search, random-search)"), std::string::npos)
      << text.out;
  CliRun timed = devplace(cmd + " --budget 0.2 --json");
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  nlohmann::json jt = nlohmann::json::parse(timed.out);
  EXPECT_TRUE(jt["budget"]["evaluations"].is_null());  // --budget alone: a time limit, no default count
  EXPECT_DOUBLE_EQ(jt["budget"]["seconds"].get<double>(), 0.2);

  CliRun help = devplace("compare --help");
  EXPECT_NE(help.out.find(std::to_string(devplace::cli::kDefaultCompareEvaluations) + " evaluations each by default"), std::string::npos)
      << help.out;
}

// --seeds: each seed's results are those of a run with --seed, and each
// method's figure is their median (seed 3's random-search is neither the
// best nor the worst of the three here, so the median is a real choice).
TEST(Cli, CompareSeedsGivesEachSeedsRunAndTheMedian) {
  const std::string cmd = std::string("compare --graph ") + kSmallNmt + " --cluster k80x4 --methods expert,random-search --evaluations 40";
  CliRun r = devplace(cmd + " --seeds 1,2,3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j.contains("seed"));
  EXPECT_EQ(j["seeds"], nlohmann::json::array({1, 2, 3}));
  ASSERT_EQ(j["per_seed"].size(), 3u);
  std::vector<double> times;
  for (int s = 1; s <= 3; ++s) {
    const nlohmann::json& run = j["per_seed"][s - 1];
    EXPECT_EQ(run["seed"].get<int>(), s);
    CliRun single = devplace(cmd + " --seed " + std::to_string(s) + " --json");
    ASSERT_EQ(single.exit_code, 0) << single.err;
    const nlohmann::json one = nlohmann::json::parse(single.out);
    ASSERT_EQ(run["results"].size(), 2u);
    for (size_t m = 0; m < 2; ++m) {
      EXPECT_DOUBLE_EQ(run["results"][m]["step_time_s"].get<double>(), one["results"][m]["step_time_s"].get<double>())
          << "seed " << s << ", " << one["results"][m]["method"];
    }
    times.push_back(run["results"][1]["step_time_s"].get<double>());
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_LT(sorted[0], sorted[2]);  // the seeds differ
  EXPECT_DOUBLE_EQ(j["results"][1]["step_time_s"].get<double>(), sorted[1]);
  EXPECT_EQ(j["results"][1]["evaluations"].get<int64_t>(), 40);
  EXPECT_DOUBLE_EQ(j["results"][0]["step_time_s"].get<double>(), j["per_seed"][0]["results"][0]["step_time_s"].get<double>());

  CliRun text = devplace(cmd + " --seeds 1,2,3");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("seeds        1, 2, 3 (each figure below: the median over them)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("seed 1      seed 2      seed 3      median"), std::string::npos) << text.out;
}

TEST(Cli, PlaceRlRunsWithinItsEvaluationsAndPrintsAStepTime) {
  CliRun r = devplace("place --method rl --evaluations 17 --graph zoo:layered:layers=4 --cluster k80x2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("method       rl\n"), std::string::npos) << r.out;
  const size_t step = r.out.find("step time    ");
  ASSERT_NE(step, std::string::npos) << r.out;
  // "step time    12.3 ms": a number and a unit.
  const std::string value = r.out.substr(step + 13, r.out.find('\n', step) - step - 13);
  EXPECT_TRUE(!value.empty() && std::isdigit(static_cast<unsigned char>(value[0]))) << value;
  EXPECT_NE(value.find('s'), std::string::npos) << value;
  EXPECT_EQ(r.out.find("OOM          yes"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("interrupted"), std::string::npos) << r.err;
  // The policy at the end: one update of 16 samples, then its greedy decode.
  EXPECT_NE(r.out.find("policy       after 1 updates, its last 16 samples average "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; its greedy decode "), std::string::npos) << r.out;

  CliRun j = devplace("place --method rl --evaluations 17 --graph zoo:layered:layers=4 --cluster k80x2 --threads 2 --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json pj = nlohmann::json::parse(j.out);
  EXPECT_EQ(pj["method"], "rl");
  EXPECT_GT(pj["step_time_s"].get<double>(), 0);
  EXPECT_GE(pj["ratio_to_lower_bound"].get<double>(), kAtLeastOne);
  EXPECT_GT(pj["evaluations"].get<int64_t>(), 0);
  EXPECT_GT(pj["groups"].get<int>(), 0);
  const nlohmann::json& policy = pj["final_policy"];
  EXPECT_EQ(policy["updates"], 1);
  EXPECT_EQ(policy["samples"], 16);
  EXPECT_GE(policy["mean_sample_step_time_s"].get<double>(), pj["step_time_s"].get<double>());
  EXPECT_GE(policy["greedy_step_time_s"].get<double>(), pj["step_time_s"].get<double>());
  EXPECT_GT(policy["entropy_per_decision"].get<double>(), 0);
}

// A pipeline is named as one in compare's table and JSON: what ran, not
// only the method asked for.
TEST(Cli, CompareNamesAPipelineByItsStages) {
  const std::string cmd = "compare --graph zoo:layered:layers=4 --cluster k80x2 --methods rl,local-search --warm-start fast --evaluations 20";
  CliRun text = devplace(cmd);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\nfast>rl "), std::string::npos) << text.out;
  CliRun j = devplace(cmd + " --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json results = nlohmann::json::parse(j.out)["results"];
  EXPECT_EQ(results[0]["method"], "fast>rl");
  EXPECT_EQ(results[0]["requested_method"], "rl");
  EXPECT_EQ(results[1]["method"], "local-search");
  EXPECT_FALSE(results[1].contains("requested_method"));
  // The learned row says what its policy had become; a search has none.
  EXPECT_EQ(results[0]["final_policy"]["samples"], 16);
  EXPECT_FALSE(results[1].contains("final_policy"));
  EXPECT_NE(text.out.find("the learned policies at the end"), std::string::npos) << text.out;
}

TEST(Cli, CompareSuitePaperHasTheSixRowsOfTable1) {
  const std::string cmd = "compare --suite paper --methods cpu,single-gpu,expert";
  CliRun text = devplace(cmd);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  int rows = 0;
  std::istringstream lines(text.out);
  for (std::string line; std::getline(lines, line);) {
    for (const char* model : {"RNNLM ", "NMT ", "Inception-V3 "}) rows += line.rfind(model, 0) == 0;
  }
  EXPECT_EQ(rows, 6) << text.out;
  for (const char* column : {"CPU only", "Single GPU", "Expert", "bound", "simulated seconds per training step"})
    EXPECT_NE(text.out.find(column), std::string::npos) << column;

  CliRun r = devplace(cmd + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["suite"], "paper");
  ASSERT_EQ(j["rows"].size(), 6u);
  std::set<std::string> models;
  for (const auto& row : j["rows"]) {
    models.insert(row["model"].get<std::string>());
    EXPECT_EQ(row["gpus"].get<int>(), row["cluster"] == "k80x2" ? 2 : 4);
    EXPECT_GT(row["lower_bound_s"].get<double>(), 0);
    ASSERT_EQ(row["results"].size(), 3u);
    EXPECT_EQ(row["results"][0]["method"], "cpu");  // the paper's column order
    EXPECT_EQ(row["results"][1]["method"], "single-gpu");
    EXPECT_EQ(row["results"][2]["method"], "expert");
    for (const auto& m : row["results"]) EXPECT_GE(m["ratio_to_lower_bound"].get<double>(), kAtLeastOne) << m["method"];
    EXPECT_TRUE(row["speedup"].is_null());  // no method beside the paper's baselines
  }
  EXPECT_EQ(models, (std::set<std::string>{"RNNLM", "NMT", "Inception-V3"}));
  EXPECT_EQ(j["budget"]["evaluations"].get<int64_t>(), devplace::cli::kDefaultCompareEvaluations);
}

TEST(Cli, CtrlCStopsTheWholeSuiteAndMarksWhatIsPartial) {
  // SIGINT after 4 s, in local-search's first row (200,000 evaluations
  // take minutes): the suite stops, prints the row, marks the cell, exits 130.
  // --foreground: one SIGINT to devplace alone. Without it timeout also
  // signals its whole process group, and under load the second signal
  // arrived after the first was handled: a second Ctrl-C, which kills.
  const std::filesystem::path out = temp_file("suite_interrupted.out");
  const std::string cmd = std::string("timeout --foreground --preserve-status -s INT 4 '") + DEVPLACE_BINARY +
                          "' compare --suite paper --methods cpu,local-search --evaluations 200000 >'" + out.string() + "' 2>/dev/null";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_LT(wall_s, 30.0);  // not the minutes of the six rows
  const std::string text = slurp(out);
  EXPECT_NE(text.find("RNNLM"), std::string::npos) << text;
  EXPECT_EQ(text.find("NMT"), std::string::npos) << text;
  EXPECT_NE(text.find(" ms*"), std::string::npos) << text;
  EXPECT_NE(text.find("interrupted (Ctrl-C): * marks a method stopped early"), std::string::npos) << text;
  EXPECT_NE(text.find("Rows run: 1 of 6."), std::string::npos) << text;
}

// --jobs runs the rows in processes side by side: the same table, and
// Ctrl-C reaches the rows running (each gets one SIGINT from devplace).
TEST(Cli, CompareSuiteJobsGivesTheSameRows) {
  const std::string cmd = "compare --suite paper --methods cpu,expert,random-search,local-search --evaluations 20 --json";
  CliRun one = devplace(cmd);
  CliRun three = devplace(cmd + " --jobs 3");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(three.exit_code, 0) << three.err;
  nlohmann::json a = nlohmann::json::parse(one.out), b = nlohmann::json::parse(three.out);
  for (nlohmann::json* j : {&a, &b}) {
    for (auto& row : (*j)["rows"]) {
      for (auto& m : row["results"]) m.erase("search_time_s");  // wall clock
    }
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(three.err.find("devplace: row 6 of 6 (Inception-V3, k80x4) done"), std::string::npos) << three.err;
}

// --seeds on the suite: each row's cells are the medians its own
// `compare --seeds` process gave (checked against one row run alone).
TEST(Cli, CompareSuiteSeedsGivesEachRowsMedians) {
  const std::string methods = " --methods cpu,expert,random-search --evaluations 20 --seeds 1,2";
  CliRun suite = devplace("compare --suite paper" + methods + " --json --jobs 2");
  ASSERT_EQ(suite.exit_code, 0) << suite.err;
  const nlohmann::json j = nlohmann::json::parse(suite.out);
  EXPECT_EQ(j["seeds"], nlohmann::json::array({1, 2}));
  EXPECT_FALSE(j.contains("seed"));
  ASSERT_EQ(j["rows"].size(), 6u);
  CliRun row = devplace("compare --graph zoo:rnnlm --cluster k80x2" + methods + " --json");
  ASSERT_EQ(row.exit_code, 0) << row.err;
  const nlohmann::json r = nlohmann::json::parse(row.out);
  for (size_t m = 0; m < 3; ++m) {
    EXPECT_DOUBLE_EQ(j["rows"][0]["results"][m]["step_time_s"].get<double>(), r["results"][m]["step_time_s"].get<double>()) << m;
  }
  CliRun text = devplace("compare --suite paper" + methods);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("each cell: the median over seeds 1, 2 (--seeds"), std::string::npos) << text.out;
}

// --reuse: a suite that stopped part way loses only what it had not
// finished. Results come from a suite's answer or from one row's, matched
// to the row they ran; a failed method runs again (and only it), as do the
// rows at another budget; the table is the one a whole run gives.
TEST(Cli, CompareSuiteReusesTheRowsEarlierAnswersFinished) {
  const std::string cmd = "compare --suite paper --methods cpu,expert,random-search --evaluations 20 --json";
  CliRun whole = devplace(cmd);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const nlohmann::json expected = nlohmann::json::parse(whole.out);
  // An earlier suite: RNNLM on k80x2 with a failed method, NMT on k80x4 missing.
  nlohmann::json partial = expected;
  partial["rows"][0]["results"][2]["step_time_s"] = nullptr;
  partial["rows"][0]["results"][2]["error"] = "its process failed (exit code 134)";
  partial["rows"].erase(3);
  const std::filesystem::path suite_file = temp_file("reuse_suite.json");
  ASSERT_TRUE(devplace::write_text_file(suite_file.string(), partial.dump()).ok());
  // NMT on k80x4 from one row's answer, its methods in another order.
  CliRun one = devplace("compare --graph zoo:nmt --cluster k80x4 --methods random-search,cpu,expert --evaluations 20 --json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const std::filesystem::path row_file = temp_file("reuse_row.json");
  ASSERT_TRUE(devplace::write_text_file(row_file.string(), one.out).ok());

  CliRun resumed = devplace(cmd + " --reuse " + suite_file.string() + "," + row_file.string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(suite_file.string() + ": RNNLM on k80x2, random-search not reused: it failed (its process failed"),
            std::string::npos)
      << resumed.err;
  nlohmann::json got = nlohmann::json::parse(resumed.out);
  ASSERT_EQ(got["rows"].size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    for (size_t m = 0; m < 3; ++m) {
      nlohmann::json& result = got["rows"][i]["results"][m];
      if (i == 0 && m == 2) {
        EXPECT_FALSE(result.contains("reused_from")) << result;  // run again
      } else {
        EXPECT_EQ(result["reused_from"], (i == 3 ? row_file : suite_file).string()) << i << " " << m;
      }
      result.erase("reused_from");
    }
  }
  nlohmann::json want = expected;
  for (nlohmann::json* j : {&got, &want}) {
    for (auto& row : (*j)["rows"]) {
      for (auto& m : row["results"]) m.erase("search_time_s");  // wall clock
    }
  }
  EXPECT_EQ(got, want);

  // Another budget: nothing fits, every row runs.
  CliRun other = devplace("compare --suite paper --methods cpu,expert,random-search --evaluations 30 --json --reuse " +
                          suite_file.string());
  ASSERT_EQ(other.exit_code, 0) << other.err;
  const nlohmann::json other_answer = nlohmann::json::parse(other.out);
  for (const auto& row : other_answer["rows"]) EXPECT_FALSE(row.contains("reused_from"));
  EXPECT_NE(other.err.find("not reused: another budget"), std::string::npos) << other.err;

  // A median over seeds (--seeds) is not one seed's row.
  CliRun medians = devplace("compare --graph zoo:nmt --cluster k80x4 --methods random-search,cpu,expert --evaluations 20 --seeds 1,2 --json");
  ASSERT_EQ(medians.exit_code, 0) << medians.err;
  const std::filesystem::path median_file = temp_file("reuse_medians.json");
  ASSERT_TRUE(devplace::write_text_file(median_file.string(), medians.out).ok());
  CliRun not_seed = devplace(cmd + " --reuse " + suite_file.string() + "," + median_file.string());
  ASSERT_EQ(not_seed.exit_code, 0) << not_seed.err;
  EXPECT_NE(not_seed.err.find(median_file.string() + ": NMT on k80x4 not reused: a median over seeds [1,2], not seed 1"), std::string::npos)
      << not_seed.err;
  const nlohmann::json not_seed_answer = nlohmann::json::parse(not_seed.out);
  for (const auto& result : not_seed_answer["rows"][3]["results"]) EXPECT_FALSE(result.contains("reused_from"));
}

// --reuse on one problem: the results of an earlier answer of the same
// problem, or of a suite's row that ran it, and only the other methods run.
TEST(Cli, CompareReusesEarlierAnswersOfTheSameProblem) {
  const std::string problem = "compare --graph zoo:inception_v3 --cluster k80x2 --evaluations 50 --json";
  CliRun earlier = devplace(problem + " --methods expert,random-search");
  ASSERT_EQ(earlier.exit_code, 0) << earlier.err;
  const std::filesystem::path file = temp_file("reuse_one.json");
  ASSERT_TRUE(devplace::write_text_file(file.string(), earlier.out).ok());
  auto without_clock = [](nlohmann::json j) {
    for (auto& r : j["results"]) r.erase("search_time_s");
    return j;
  };
  CliRun whole = devplace(problem + " --methods expert,random-search,local-search");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  CliRun added = devplace(problem + " --methods expert,random-search,local-search --reuse " + file.string());
  ASSERT_EQ(added.exit_code, 0) << added.err;
  nlohmann::json got = nlohmann::json::parse(added.out);
  for (size_t m = 0; m < 3; ++m) {
    if (m < 2) {
      EXPECT_EQ(got["results"][m]["reused_from"], file.string()) << m;
    } else {
      EXPECT_FALSE(got["results"][m].contains("reused_from"));
    }
    got["results"][m].erase("reused_from");
  }
  EXPECT_EQ(without_clock(got), without_clock(nlohmann::json::parse(whole.out)));

  // From a suite's row: matched by the --graph and --cluster it ran.
  CliRun suite = devplace("compare --suite paper --methods cpu,expert --evaluations 50 --json");
  ASSERT_EQ(suite.exit_code, 0) << suite.err;
  const std::filesystem::path suite_file = temp_file("reuse_one_suite.json");
  ASSERT_TRUE(devplace::write_text_file(suite_file.string(), suite.out).ok());
  CliRun from_suite = devplace(problem + " --methods cpu,expert --reuse " + suite_file.string());
  ASSERT_EQ(from_suite.exit_code, 0) << from_suite.err;
  const nlohmann::json from_suite_answer = nlohmann::json::parse(from_suite.out);
  for (const auto& r : from_suite_answer["results"]) EXPECT_EQ(r["reused_from"], suite_file.string()) << r;
  CliRun text = devplace("compare --graph zoo:inception_v3 --cluster k80x2 --evaluations 50 --methods expert,random-search,local-search --reuse " +
                         file.string());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("results taken from earlier answers, at the same budget, seed and options (--reuse): " + file.string() +
                          "; run now: local-search."),
            std::string::npos)
      << text.out;
  // The same graph's name, another graph: named, not taken.
  CliRun fork = devplace("compare --graph " + data("fork.json") + " --cluster k80x2 --methods expert --json");
  ASSERT_EQ(fork.exit_code, 0) << fork.err;
  const std::filesystem::path fork_file = temp_file("reuse_fork.json");
  ASSERT_TRUE(devplace::write_text_file(fork_file.string(), fork.out).ok());
  CliRun training = devplace("compare --graph " + data("fork.json") + " --training --cluster k80x2 --methods expert --json --reuse " +
                             fork_file.string());
  ASSERT_EQ(training.exit_code, 0) << training.err;
  EXPECT_NE(training.err.find(fork_file.string() + ": fork on k80x2 not reused: its graph has "), std::string::npos) << training.err;
  EXPECT_FALSE(nlohmann::json::parse(training.out)["results"][0].contains("reused_from"));
  CliRun seeds = devplace(problem + " --methods expert --seeds 1,2 --reuse " + file.string());
  EXPECT_EQ(seeds.exit_code, 2);
  EXPECT_NE(seeds.err.find("--reuse cannot be combined with --seeds"), std::string::npos) << seeds.err;
}

// A method added to a finished suite runs alone: the others' results come
// from the earlier answer, in process and with --jobs, and the rows are
// those of a whole run.
TEST(Cli, CompareSuiteReuseRunsOnlyTheMethodsAdded) {
  CliRun earlier = devplace("compare --suite paper --methods cpu,expert --evaluations 20 --json");
  ASSERT_EQ(earlier.exit_code, 0) << earlier.err;
  const std::filesystem::path file = temp_file("reuse_added.json");
  ASSERT_TRUE(devplace::write_text_file(file.string(), earlier.out).ok());
  const std::string cmd = "compare --suite paper --methods cpu,expert,random-search --evaluations 20";
  CliRun whole = devplace(cmd + " --json");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  nlohmann::json want = nlohmann::json::parse(whole.out);
  for (auto& row : want["rows"]) {
    for (auto& m : row["results"]) m.erase("search_time_s");
  }
  for (const std::string jobs : {"", " --jobs 2"}) {
    CliRun added = devplace(cmd + " --json --reuse " + file.string() + jobs);
    ASSERT_EQ(added.exit_code, 0) << added.err;
    nlohmann::json got = nlohmann::json::parse(added.out);
    ASSERT_EQ(got["rows"].size(), 6u) << jobs;
    for (auto& row : got["rows"]) {
      for (size_t m = 0; m < 3; ++m) {
        nlohmann::json& result = row["results"][m];
        if (m < 2) {
          EXPECT_EQ(result["reused_from"], file.string()) << jobs << result;
        } else {
          EXPECT_FALSE(result.contains("reused_from")) << jobs << result;
        }
        result.erase("reused_from");
        result.erase("search_time_s");
      }
    }
    EXPECT_EQ(got, want) << jobs;
  }
  // Results made with other options that change them are not this run's.
  CliRun regrouped = devplace(cmd + " --json --grouping colocation --reuse " + file.string());
  ASSERT_EQ(regrouped.exit_code, 0) << regrouped.err;
  EXPECT_NE(regrouped.err.find(file.string() + ": RNNLM on k80x2 not reused: other options ({}, not {\"grouping\":\"colocation\"})"),
            std::string::npos)
      << regrouped.err;
  const nlohmann::json regrouped_answer = nlohmann::json::parse(regrouped.out);
  EXPECT_EQ(regrouped_answer["options"], nlohmann::json({{"grouping", "colocation"}}));
  for (const auto& row : regrouped_answer["rows"]) {
    for (const auto& result : row["results"]) EXPECT_FALSE(result.contains("reused_from")) << result;
  }
  CliRun text = devplace(cmd + " --reuse " + file.string());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("results taken from earlier answers, at the same budget, seed and options (--reuse): every row (" + file.string() +
                          "; run now: random-search)."),
            std::string::npos)
      << text.out;
}

// Each searching method's curve (best found after 250, 1,000, ...
// evaluations) comes from its one run, in the table and in the JSON.
TEST(Cli, CompareGivesTheSearchingMethodsCurves) {
  const std::string cmd = "compare --graph zoo:inception_v3 --cluster k80x2 --methods expert,random-search,local-search --evaluations 1200";
  CliRun text = devplace(cmd);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("best step time found after N evaluations"), std::string::npos) << text.out;
  CliRun j = devplace(cmd + " --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json results = nlohmann::json::parse(j.out)["results"];
  EXPECT_FALSE(results[0].contains("best_after"));  // expert makes no evaluations
  for (int i : {1, 2}) {
    const nlohmann::json& curve = results[i]["best_after"];
    ASSERT_EQ(curve.size(), 2u) << results[i];  // 250 and 1000 of 1200
    const double at250 = curve["250"].get<double>(), at1000 = curve["1000"].get<double>();
    EXPECT_LE(at1000, at250);
    EXPECT_LE(results[i]["step_time_s"].get<double>(), at1000);  // the answer is the best of all 1200
  }
}

TEST(Cli, CtrlCWithJobsStopsTheRowsRunning) {
  const std::filesystem::path out = temp_file("suite_jobs_interrupted.out");
  const std::string cmd = std::string("timeout --foreground --preserve-status -s INT 4 '") + DEVPLACE_BINARY +
                          "' compare --suite paper --methods cpu,local-search --evaluations 200000 --jobs 2 >'" + out.string() +
                          "' 2>/dev/null";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_LT(wall_s, 30.0);
  const std::string text = slurp(out);
  EXPECT_NE(text.find("RNNLM              4"), std::string::npos) << text;  // the two rows running
  EXPECT_EQ(text.find("NMT"), std::string::npos) << text;
  EXPECT_NE(text.find(" ms*"), std::string::npos) << text;
  EXPECT_NE(text.find("Rows run: 2 of 6."), std::string::npos) << text;
}

TEST(Cli, OnnxExportsThatOnceFailedImportTrainAndPlace) {
  // A class token expanded to the batch (constant-folded shapes), a model
  // with dynamic axes (--input-shape), weights as Constant nodes (which
  // imported as 0 parameters, so --training refused the model).
  const std::string onnx = std::string(DEVPLACE_TESTDATA_DIR) + "/io/testdata/onnx/";
  for (const std::string& graph : {onnx + "vit_expand.onnx", onnx + "symbolic_batch.onnx --input-shape x=3x16",
                                   onnx + "constant_weights.onnx"}) {
    const CliRun r = devplace("place --graph " + graph + " --training --cluster k80x2 --method m-etf --json");
    ASSERT_EQ(r.exit_code, 0) << graph << ": " << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["step_time_s"].get<double>(), 0) << graph;
    EXPECT_FALSE(j["oom"].get<bool>()) << graph;
  }
}

TEST(Cli, CompareSuitePaperStatesTheSearchBudget) {
  const std::string cmd = "compare --suite paper --methods expert,random-search --evaluations 5";
  CliRun text = devplace(cmd);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("budget: 5 evaluations per searching method (random-search); each cell's evaluations in --json"),
            std::string::npos)
      << text.out;
  CliRun r = devplace(cmd + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["budget"]["evaluations"].get<int64_t>(), 5);
  ASSERT_EQ(j["rows"].size(), 6u);
  for (const auto& row : j["rows"]) {
    for (const auto& m : row["results"]) ASSERT_TRUE(m.contains("evaluations")) << m;
    EXPECT_EQ(row["results"][1]["method"], "random-search");
    EXPECT_EQ(row["results"][1]["evaluations"].get<int64_t>(), 5);
  }
}

}  // namespace
