// The measurer protocol (docs/measurer.md) against tests/measure/fake_measurer:
// answers, the cache, OOM and error answers, every kind of fault (crash,
// hang, garbage) with a restart and the failure penalty, failed starts, a
// search through a faulty measurer, and `devplace place --measure`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../test_cli.h"
#include "../test_clusters.h"
#include "../test_graphs.h"
#include "common/interrupt.h"
#include "cost/cost_model.h"
#include "measure/child_process.h"
#include "measure/measurer.h"
#include "measure/protocol.h"
#include "place/run_placer.h"
#include "place/search.h"

namespace devplace {
namespace {

namespace fs = std::filesystem;

struct Fixture {
  Cluster cluster = testing::toy_cluster();
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  Graph graph = testing::tiny_dag(3, 6);
  Problem problem = Problem::create(graph, cluster, *cost).value();
};

MeasurerOptions fake(const std::string& args, double timeout_s = 5) {
  MeasurerOptions o;
  o.command = std::string("'") + FAKE_MEASURER + "' " + args;
  o.graph_source = "test";
  o.timeout_s = timeout_s;
  o.startup_timeout_s = 5;
  o.quiet = true;
  return o;
}

Placement all_on(const Problem& p, DeviceId d) { return Placement{std::vector<DeviceId>(p.num_ops(), d)}; }

std::vector<std::string> lines_of(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(Measurer, AnswersAndCachesByContent) {
  Fixture f;
  const fs::path record = testing::temp_file("record");
  fs::remove(record);
  auto m = Measurer::start(f.problem, fake("--record '" + record.string() + "'")).value();
  EXPECT_EQ(m->measurer_name(), "fake_measurer 1");
  // 6 ops on one device: 6 ms + 0.1 ms.
  const Evaluation a = m->evaluate(all_on(f.problem, 1)).value();
  EXPECT_NEAR(a.step_time_s, 6.1e-3, 1e-12);
  EXPECT_FALSE(a.oom);
  EXPECT_FALSE(a.failed);
  Placement split = all_on(f.problem, 1);
  for (int op = 0; op < 3; ++op) split.device_of_op[op] = 2;
  EXPECT_NEAR(m->evaluate(split).value().step_time_s, 3.2e-3, 1e-12);
  EXPECT_NEAR(m->evaluate(all_on(f.problem, 1)).value().step_time_s, 6.1e-3, 1e-12);
  EXPECT_EQ(m->stats().measured, 2);
  EXPECT_EQ(m->stats().cache_hits, 1);
  EXPECT_EQ(m->num_evaluations(), 3);
  EXPECT_EQ(lines_of(record).size(), 2u);  // the cached placement was not sent again
  fs::remove(record);
}

TEST(Measurer, WithoutTheCacheARepeatedPlacementIsMeasuredAgain) {
  Fixture f;
  const fs::path record = testing::temp_file("record_nocache");
  fs::remove(record);
  MeasurerOptions o = fake("--record '" + record.string() + "'");
  o.cache = false;
  auto m = Measurer::start(f.problem, o).value();
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(m->evaluate(all_on(f.problem, 1)).value().step_time_s, 6.1e-3, 1e-12);
  EXPECT_EQ(m->stats().measured, 3);
  EXPECT_EQ(m->stats().cache_hits, 0);
  EXPECT_EQ(lines_of(record).size(), 3u);
  fs::remove(record);
}

TEST(Measurer, OomAndErrorAnswersScoreAsInvalid) {
  Fixture f;
  auto m = Measurer::start(f.problem, fake("--max-ops 4")).value();
  const Evaluation oom = m->evaluate(all_on(f.problem, 1)).value();
  EXPECT_TRUE(oom.oom);
  EXPECT_GE(search_cost_s(f.problem, oom), 100.0);
  EXPECT_EQ(m->stats().ooms, 1);
  EXPECT_EQ(m->stats().faults(), 0);
  // A placement that does not fit the problem is an error, not a measurement.
  EXPECT_FALSE(m->evaluate(Placement{{0, 1}}).ok());
}

TEST(Measurer, EveryKindOfFaultRestartsAndScoresThePenalty) {
  Fixture f;
  const fs::path state = testing::temp_file("state"), log = testing::temp_file("log");
  fs::remove(state);
  MeasurerOptions o = fake("--fault-every 3 --state '" + state.string() + "'", /*timeout_s=*/0.5);
  o.log_path = log.string();
  auto m = Measurer::start(f.problem, o).value();
  // Requests 3, 6 and 9 fault: crash, hang (0.5 s timeout) and garbage, in turn.
  int failed = 0;
  std::vector<Placement> faulted;
  for (int i = 0; i < 9; ++i) {
    Placement p = all_on(f.problem, 1);
    for (int op = 0; op < (i < 6 ? i : i - 5); ++op) p.device_of_op[op] = i < 6 ? 2 : 0;
    const Evaluation e = m->evaluate(p).value();
    if (e.failed) {
      ++failed;
      faulted.push_back(p);
      EXPECT_EQ(e.step_time_s, 100.0);
      EXPECT_GT(search_cost_s(f.problem, e), 100.0);
    }
  }
  EXPECT_EQ(failed, 3);
  EXPECT_EQ(m->stats().exits, 1);
  EXPECT_EQ(m->stats().timeouts, 1);
  EXPECT_EQ(m->stats().garbage, 1);
  // The first start and a restart after each of the first two faults: the
  // measurer is restarted when the next placement comes.
  EXPECT_EQ(m->stats().starts, 3);
  EXPECT_EQ(m->stats().measured, 6);
  // Faults are not cached: the placement is measured again (request 10 answers).
  EXPECT_FALSE(m->evaluate(faulted[0]).value().failed);
  EXPECT_EQ(m->stats().measured, 7);
  EXPECT_EQ(m->stats().starts, 4);
  m.reset();
  int faults = 0, starts = 0;
  for (const std::string& line : lines_of(log)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j["event"] == "fault") ++faults;
    if (j["event"] == "start") ++starts;
  }
  EXPECT_EQ(faults, 3);
  EXPECT_EQ(starts, 4);
  fs::remove(state);
  fs::remove(log);
}

TEST(Measurer, AStartThatFailsIsOneClearError) {
  Fixture f;
  struct Case {
    std::string args;
    std::string expected;
  };
  for (const Case& c : {Case{"--hello error", "told to refuse"}, Case{"--hello crash", "exit status 3) before answering hello"},
                        Case{"--hello hang", "no answer to hello within"}}) {
    MeasurerOptions o = fake(c.args);
    o.startup_timeout_s = 0.3;
    auto m = Measurer::start(f.problem, o);
    ASSERT_FALSE(m.ok()) << c.args;
    EXPECT_TRUE(m.error().is_user_error());
    EXPECT_NE(m.error().message().find(c.expected), std::string::npos) << m.error().message();
    EXPECT_EQ(m.error().message().find('\n'), std::string::npos);
  }
  MeasurerOptions o = fake("");
  o.command = "/no/such/measurer";
  auto m = Measurer::start(f.problem, o);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message().find("exit status 127"), std::string::npos) << m.error().message();
}

TEST(Measurer, CtrlCEndsTheWaitForAHungMeasurerAtOnce) {
  Fixture f;
  const auto state = testing::temp_file("hang_state");
  fs::remove(state);
  MeasurerOptions o = fake("--hang-first 1 --state '" + state.string() + "'", /*timeout_s=*/30);  // the first request hangs
  auto m = Measurer::start(f.problem, o);
  ASSERT_TRUE(m.ok()) << m.error().message();
  clear_interrupt();
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    request_interrupt();
  });
  const auto t0 = std::chrono::steady_clock::now();
  const Evaluation e = m.value()->evaluate(all_on(f.problem, 1)).value();
  const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ctrl_c.join();
  EXPECT_TRUE(e.failed);
  EXPECT_LT(waited_s, 5.0);  // not the 30 s timeout
  EXPECT_EQ(m.value()->stats().timeouts, 0);
  // While the flag is set nothing more is measured; after it, the measurer
  // starts again and answers.
  EXPECT_TRUE(m.value()->evaluate(all_on(f.problem, 2)).value().failed);
  EXPECT_EQ(m.value()->stats().measured, 0);
  clear_interrupt();
  EXPECT_FALSE(m.value()->evaluate(all_on(f.problem, 2)).value().failed);
  EXPECT_EQ(m.value()->stats().starts, 2);
  fs::remove(state);
}

TEST(ChildProcess, ReadLineReportsTheWaitAboutOnceASecond) {
  ChildProcess child;
  ASSERT_TRUE(child.start("sleep 5").ok());
  std::vector<double> waits;
  std::string line;
  EXPECT_EQ(child.read_line(2.5, 1024, line, [&](double waited_s) { waits.push_back(waited_s); }),
            ChildProcess::ReadResult::kTimeout);
  ASSERT_GE(waits.size(), 2u);
  EXPECT_TRUE(std::is_sorted(waits.begin(), waits.end()));
  EXPECT_GE(waits[0], 0.9);
  EXPECT_LE(waits.back(), 2.6);
  child.stop(0);
}

TEST(Measurer, ProtocolRejectsMalformedResults) {
  using measure_protocol::parse_result;
  EXPECT_TRUE(parse_result(R"({"type":"result","id":4,"status":"ok","step_time_s":0.5})", 4, 3).ok());
  EXPECT_FALSE(parse_result(R"({"type":"result","id":5,"status":"ok","step_time_s":0.5})", 4, 3).ok());
  EXPECT_FALSE(parse_result(R"({"type":"result","id":4,"status":"ok","step_time_s":-1})", 4, 3).ok());
  EXPECT_FALSE(parse_result(R"({"type":"result","id":4,"status":"ok"})", 4, 3).ok());
  // Absurd values: a step of 1e308 s, and peak bytes beyond int64.
  const auto huge = parse_result(R"({"type":"result","id":4,"status":"ok","step_time_s":1e308})", 4, 3);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().message(), "step_time_s must be positive and at most a week (604800 s), got 1e+308");
  EXPECT_TRUE(parse_result(R"({"type":"result","id":4,"status":"ok","step_time_s":604800})", 4, 3).ok());
  EXPECT_FALSE(parse_result(R"({"type":"result","id":4,"status":"ok","step_time_s":0.5,"peak_memory_bytes":[0,1e300,0]})", 4, 3).ok());
  EXPECT_TRUE(parse_result(R"({"type":"result","id":4,"status":"oom","peak_memory_bytes":[0,13e9,0]})", 4, 3).ok());
  EXPECT_FALSE(parse_result(R"({"type":"result","id":4,"status":"fine","step_time_s":1})", 4, 3).ok());
  EXPECT_FALSE(parse_result(R"({"type":"result","id":4,"status":"ok","step_time_s":1,"peak_memory_bytes":[1]})", 4, 3).ok());
  EXPECT_FALSE(parse_result("Traceback (most recent call last):", 4, 3).ok());
  EXPECT_FALSE(parse_result("[1, 2]", 4, 3).ok());
  const auto oom = parse_result(R"({"type":"result","id":4,"status":"oom","device":"/gpu:1"})", 4, 3).value();
  EXPECT_EQ(oom.kind, measure_protocol::MeasureAnswer::Kind::kOom);
  EXPECT_EQ(oom.device, "/gpu:1");
}

TEST(Measurer, ASearchCompletesThroughAFaultyMeasurer) {
  // A tenth of the measure requests crash, hang or print garbage; the
  // search goes on, and every fault is counted and logged.
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Graph g = testing::tiny_dag(5, 24);
  Problem p = Problem::create(g, c, *cost).value();
  const fs::path state = testing::temp_file("search_state"), log = testing::temp_file("search_log");
  fs::remove(state);
  MeasurerOptions o = fake("--fault-every 10 --state '" + state.string() + "'", /*timeout_s=*/0.2);
  o.log_path = log.string();
  auto m = Measurer::start(p, o).value();
  PlacerRunOptions options;
  options.budget.evaluations = 300;
  options.grouping.kind = GroupingKind::kColocation;
  const Result<PlacerRun> run = run_placer("local-search", p, *m, options);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_FALSE(run.value().evaluation.failed);
  const MeasurerStats s = m->stats();
  const int64_t requests = s.measured + s.faults();
  EXPECT_GE(requests, 100);
  EXPECT_EQ(s.faults(), requests / 10);
  EXPECT_GT(s.timeouts, 0);
  EXPECT_GT(s.exits, 0);
  EXPECT_GT(s.garbage, 0);
  m.reset();
  int logged = 0;
  for (const std::string& line : lines_of(log)) logged += nlohmann::json::parse(line)["event"] == "fault";
  EXPECT_EQ(logged, s.faults());
  fs::remove(state);
  fs::remove(log);
}

TEST(MeasureCli, PlaceReportsTheMeasuredStepTime) {
  const testing::CliRun r = testing::devplace("place --graph zoo:layered --cluster k80x2 --method local-search "
                                              "--evaluations 40 --json --measure \"'" FAKE_MEASURER "'\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["evaluator"], "measurer");
  EXPECT_EQ(j["measurer"]["name"], "fake_measurer 1");
  EXPECT_GT(j["measurer"]["measured"].get<int>(), 1);
  EXPECT_LE(j["step_time_s"].get<double>(), j["single_gpu_step_time_s"].get<double>());
  EXPECT_NE(r.err.find("placements measured"), std::string::npos) << r.err;
  // The chosen placement measured 3 more times past the cache; the fake measurer is exact.
  EXPECT_DOUBLE_EQ(j["remeasured_step_time_s"].get<double>(), j["step_time_s"].get<double>());
}

TEST(MeasureCli, PlaceMeasuresItsChoiceAgain) {
  const auto record = testing::temp_file("recheck_record");
  fs::remove(record);
  const testing::CliRun r = testing::devplace("place --graph zoo:layered --cluster k80x2 --method single-gpu --measure-recheck 4 "
                                              "--measure \"'" FAKE_MEASURER "' --record '" + record.string() + "'\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("again (median of 4 fresh measurements"), std::string::npos) << r.out;
  // single-gpu once, then 4 fresh measurements of the same placement.
  EXPECT_EQ(lines_of(record).size(), 5u);
  const testing::CliRun none = testing::devplace("place --graph zoo:layered --cluster k80x2 --method single-gpu --json "
                                                 "--measure-recheck 0 --measure \"'" FAKE_MEASURER "'\"");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_TRUE(nlohmann::json::parse(none.out)["remeasured_step_time_s"].is_null());
  fs::remove(record);
}

TEST(MeasureCli, FailedStartsBeforeAGoodOneAreSaidAndCounted) {
  const auto state = testing::temp_file("start_faults");
  fs::remove(state.string() + ".starts");
  const testing::CliRun r = testing::devplace("place --graph zoo:layered --cluster k80x2 --method single-gpu --json "
                                              "--measure \"'" FAKE_MEASURER "' --start-faults 2 --state '" + state.string() + "'\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("start 1 of 3 failed: exited (exit status 4) before answering hello; starting it again"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("start 2 of 3 failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3 processes started (1 answered ready)"), std::string::npos) << r.err;
  const nlohmann::json m = nlohmann::json::parse(r.out)["measurer"];
  EXPECT_EQ(m["failed_starts"], 2);
  EXPECT_EQ(m["starts"], 1);
  EXPECT_EQ(m["processes_started"], 3);
  // Three failures in a row: one error line after the two retries.
  fs::remove(state.string() + ".starts");
  const testing::CliRun bad = testing::devplace("place --graph zoo:layered --cluster k80x2 --method single-gpu "
                                                "--measure \"'" FAKE_MEASURER "' --start-faults 3 --state '" + state.string() + "'\"");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 3) << bad.err;
  EXPECT_NE(bad.err.find("exited (exit status 4) before answering hello\n"), std::string::npos) << bad.err;
  fs::remove(state.string() + ".starts");
}

TEST(MeasureCli, WithoutTheCacheTheStepTimeIsSaidToBeAFreshMeasurement) {
  const std::string place = "place --graph zoo:layered --cluster k80x2 --method single-gpu --measure-recheck 0 --measure \"'" FAKE_MEASURER "'\"";
  const testing::CliRun cached = testing::devplace(place);
  ASSERT_EQ(cached.exit_code, 0) << cached.err;
  EXPECT_NE(cached.out.find("(as measured during the search)"), std::string::npos) << cached.out;
  const testing::CliRun fresh = testing::devplace(place + " --measure-no-cache");
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_NE(fresh.out.find("(one more measurement of the chosen placement, --measure-no-cache)"), std::string::npos) << fresh.out;
  EXPECT_EQ(fresh.out.find("during the search"), std::string::npos) << fresh.out;
}

TEST(MeasureCli, ARefusingMeasurerIsExitCode2AndOneLine) {
  const testing::CliRun r = testing::devplace("place --graph zoo:layered --cluster k80x2 --method single-gpu "
                                              "--measure \"'" FAKE_MEASURER "' --hello error\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("told to refuse"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  const testing::CliRun bad = testing::devplace("place --graph zoo:rnnlm --cluster k80x2 --method single-gpu --measure-log x.jsonl");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--measure-log needs --measure"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace devplace
