// The HTML report: its lanes, rows, titles and charts for a small problem,
// the training-log reader, and `devplace report` / --report end to end.
#include "report/report.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "../test_cli.h"
#include "../test_clusters.h"
#include "../test_graphs.h"
#include "cost/cost_model.h"
#include "place/run_placer.h"
#include "sim/simulator.h"

namespace devplace {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

struct Fixture {
  Cluster cluster = testing::toy_cluster();
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  Graph graph = testing::tiny_dag(5, 8);
  Problem problem = Problem::create(graph, cluster, *cost).value();
};

Placement placement_of(const Problem& p, const std::string& method) {
  Simulator sim(p);
  return run_placer(method, p, sim).value().placement;
}

TEST(HtmlReport, LanesRowsAndTitles) {
  Fixture f;
  report::Report r{"tiny <report> & co", {}, {}};
  Placement split{std::vector<DeviceId>(f.problem.num_ops(), 1)};
  for (int op = 0; op < f.problem.num_ops(); op += 2) split.device_of_op[op] = 2;
  r.sections.push_back({"tiny on toy", &f.problem,
                        {{"split", split, "", 0.5}, {"single-gpu", placement_of(f.problem, "single-gpu"), "", std::nan("")},
                         {"broken", {}, "it failed", std::nan("")}}});
  const std::string html = report::render_html(r).value();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>tiny &lt;report&gt; &amp; co</title>"), std::string::npos);
  // Offline: nothing is fetched.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  // Three placements: each row, the failed one with its message.
  EXPECT_EQ(count(html, "<tr class=\"method-row"), 3u);
  EXPECT_NE(html.find("failed: it failed"), std::string::npos);
  // Two timelines (the failed entry has none), each with the 3 device lanes.
  EXPECT_EQ(count(html, "<svg class=\"timeline\""), 2u);
  EXPECT_EQ(count(html, "<g class=\"lane device\""), 6u);
  // The split placement moves tensors between the GPUs: link lanes, transfers.
  EXPECT_GE(count(html, "<g class=\"lane link\""), 1u);
  EXPECT_NE(html.find("/gpu:0-&gt;/gpu:1"), std::string::npos);
  // Each op of the tiny graph is wide enough to have its own hover title.
  for (int op = 0; op < f.problem.num_ops(); ++op) EXPECT_NE(html.find("<title>op" + std::to_string(op) + " (MatMul, forward) on"), std::string::npos) << op;
  EXPECT_EQ(count(html, "<svg class=\"memory\""), 2u);
  EXPECT_EQ(count(html, "<tr class=\"device-row\">"), 6u);
  // The fastest row is marked; the summary names the lower bound.
  EXPECT_EQ(count(html, "method-row best"), 1u);
  EXPECT_NE(html.find("lower bound"), std::string::npos);
}

TEST(HtmlReport, ManyPlacementsShowTheFastestTimelineOnly) {
  Fixture f;
  report::Section s{"tiny", &f.problem, {}};
  for (const char* m : {"cpu", "single-gpu", "round-robin", "m-etf", "heft"}) s.entries.push_back({m, placement_of(f.problem, m), "", 0.0});
  const std::string html = report::render_html({"t", {s}, {}}).value();
  EXPECT_EQ(count(html, "<tr class=\"method-row"), 5u);
  EXPECT_EQ(count(html, "<svg class=\"timeline\""), 1u);
}

TEST(HtmlReport, AWrongPlacementIsAnError) {
  Fixture f;
  report::Section s{"tiny", &f.problem, {{"short", Placement{{0, 1}}, "", 0.0}}};
  EXPECT_FALSE(report::render_html({"t", {s}, {}}).ok());
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = testing::temp_file(name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(TrainingLog, ReadsTheColumnsItNeeds) {
  const std::string path = write("log.csv",
                                 "iteration,wall_s,evaluations,mean_step_s,best_step_s,baseline_s,entropy,valid_fraction,learning_rate\n"
                                 "1,0.1,8,0.5,inf,0.5,1.0,0,0.1\n2,0.2,16,nan,0.4,0.5,1.0,0.5,0.1\n3,0.3,24,0.45,0.35,0.5,1.0,1,0.1\n");
  const report::TrainingCurve c = report::read_training_log(path).value();
  ASSERT_EQ(c.iteration.size(), 3u);
  EXPECT_DOUBLE_EQ(c.iteration[2], 3);
  EXPECT_TRUE(std::isnan(c.best_s[0]));
  EXPECT_TRUE(std::isnan(c.mean_s[1]));
  EXPECT_DOUBLE_EQ(c.best_s[2], 0.35);
  const std::string html = report::render_html({"t", {}, {c}}).value();
  EXPECT_EQ(count(html, "<svg class=\"training\""), 1u);
  EXPECT_EQ(count(html, "class=\"curve-best\""), 1u);
}

TEST(TrainingLog, BadFilesNameTheLine) {
  const std::string no_columns = write("bad1.csv", "a,b,c\n1,2,3\n");
  EXPECT_EQ(report::read_training_log(no_columns).error().message(),
            no_columns + ":1: not a training log (expected the columns iteration, mean_step_s and best_step_s)");
  const std::string bad_number = write("bad2.csv", "iteration,mean_step_s,best_step_s\n1,0.5,0.4\n2,x,0.4\n");
  EXPECT_EQ(report::read_training_log(bad_number).error().message(), bad_number + ":3: mean_step_s: expected a number, got 'x'");
  const std::string short_row = write("bad3.csv", "iteration,mean_step_s,best_step_s\n1,0.5\n");
  EXPECT_EQ(report::read_training_log(short_row).error().message(), short_row + ":2: expected 3 columns, got 2");
  const std::string empty = write("bad4.csv", "");
  EXPECT_EQ(report::read_training_log(empty).error().message(), empty + ": empty file, not a training log");
}

TEST(ReportCli, ReportPlaceAndCompareWriteTheirReports) {
  const auto out = testing::temp_file("r.html");
  const testing::CliRun r = testing::devplace("report --graph zoo:inception_v3 --cluster k80x2 --placement expert,m-etf --out '" +
                                              out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = testing::slurp(out);
  EXPECT_EQ(count(html, "<tr class=\"method-row"), 2u);
  EXPECT_EQ(count(html, "<g class=\"lane device\""), 6u);  // 2 timelines x 3 devices

  const auto placed = testing::temp_file("p.html");
  const testing::CliRun p = testing::devplace("place --graph zoo:inception_v3 --cluster k80x2 --method m-etf --report '" +
                                              placed.string() + "'");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(count(testing::slurp(placed), "<tr class=\"method-row"), 1u);

  const auto compared = testing::temp_file("c.html");
  const testing::CliRun c = testing::devplace(
      "compare --graph zoo:inception_v3 --cluster k80x2 --methods cpu,expert,random-search --evaluations 7 --report '" +
      compared.string() + "'");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string compared_html = testing::slurp(compared);
  EXPECT_EQ(count(compared_html, "<tr class=\"method-row"), 3u);
  // Each row's evaluations: none for cpu and expert, the budget's 7 for random-search.
  EXPECT_NE(compared_html.find("<th>evaluations</th>"), std::string::npos);
  EXPECT_EQ(count(compared_html, "<td>0</td></tr>"), 2u);
  EXPECT_EQ(count(compared_html, "<td>7</td></tr>"), 1u);
  EXPECT_EQ(compared_html.find("policy: mean sample / greedy"), std::string::npos);  // no learned row, no column

  // A learned run's row adds its policy at the end: the mean sample and the greedy decode.
  const auto learned = testing::temp_file("l.html");
  const testing::CliRun l = testing::devplace("place --graph zoo:layered:layers=4 --cluster k80x2 --method rl --evaluations 17 --report '" +
                                              learned.string() + "'");
  ASSERT_EQ(l.exit_code, 0) << l.err;
  const std::string learned_html = testing::slurp(learned);
  EXPECT_NE(learned_html.find("policy: mean sample / greedy</th>"), std::string::npos);
  EXPECT_EQ(count(learned_html, " ms / "), 1u) << learned_html.substr(0, 4000);
  std::filesystem::remove(learned);

  const testing::CliRun bad = testing::devplace("report --graph zoo:inception_v3 --cluster k80x2 --placement nosuch --out x.html");
  EXPECT_EQ(bad.exit_code, 2);
  const testing::CliRun bad_log = testing::devplace("report --graph zoo:inception_v3 --cluster k80x2 --placement expert --out '" +
                                                    out.string() + "' --training-log /no/such.csv");
  EXPECT_EQ(bad_log.exit_code, 2);
  EXPECT_NE(bad_log.err.find("/no/such.csv"), std::string::npos) << bad_log.err;
  for (const auto& f : {out, placed, compared}) std::filesystem::remove(f);
}

}  // namespace
}  // namespace devplace
