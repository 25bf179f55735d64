// Simulator fidelity: the rank correlation, the single-device placements and
// the time_scale fit (measure/calibration.h), and `devplace calibrate`
// against the fake measurer.
#include "measure/calibration.h"

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../test_cli.h"
#include "../test_clusters.h"
#include "../test_graphs.h"
#include "cluster/cluster_json.h"
#include "cost/cost_model.h"
#include "sim/simulator.h"

namespace devplace {
namespace {

TEST(Calibration, SpearmanRanks) {
  EXPECT_DOUBLE_EQ(spearman_rank_correlation({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman_rank_correlation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // Only the order counts: a monotone transform keeps 1.
  EXPECT_DOUBLE_EQ(spearman_rank_correlation({0.1, 5, 2, 9}, {1, 125, 8, 729}), 1.0);
  // Ties take their average rank: ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4).
  EXPECT_NEAR(spearman_rank_correlation({1, 2, 2, 3}, {1, 2, 3, 4}), 4.5 / std::sqrt(4.5 * 5.0), 1e-12);
  // One swap of four: 1 - 6 * 2 / (4 * 15).
  EXPECT_NEAR(spearman_rank_correlation({1, 2, 3, 4}, {2, 1, 3, 4}), 0.8, 1e-12);
  EXPECT_TRUE(std::isnan(spearman_rank_correlation({1}, {1})));
  EXPECT_TRUE(std::isnan(spearman_rank_correlation({1, 1, 1}, {1, 2, 3})));
}

struct Fixture {
  Cluster cluster = testing::toy_cluster();
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  Graph graph = testing::tiny_dag(3, 6);
  Problem problem = Problem::create(graph, cluster, *cost).value();
};

TEST(Calibration, AllOnDeviceKeepsOpsWithoutAKernelOnAnother) {
  GraphBuilder b("host_op");
  const OpId data = b.add_op("data", "Input");
  b.mutable_op(data).kernel_mask = uint8_t{1} << static_cast<int>(DeviceKind::kCpu);
  const TensorId t = b.add_output(data, "x", {}, DType::kFloat32, 1000);
  const OpId mm = b.add_op("mm", "MatMul");
  b.mutable_op(mm).flops = 1e9;
  b.add_input(mm, t);
  b.add_output(mm, "y", {}, DType::kFloat32, 1000);
  const Graph g = std::move(b).build().value();
  const Cluster c = testing::toy_cluster();
  const auto cost = make_default_cost_model();
  const Problem p = Problem::create(g, c, *cost).value();
  EXPECT_EQ(all_on_device(p, 2).device_of_op, (std::vector<DeviceId>{0, 2}));
  EXPECT_EQ(all_on_device(p, 0).device_of_op, (std::vector<DeviceId>{0, 0}));
  EXPECT_TRUE(check_placement(p, all_on_device(p, 1)).ok());
}

TEST(Calibration, TimeScaleIsMeasuredOverSimulatedForEachDeviceAlone) {
  Fixture f;
  Simulator sim(f.problem);
  std::vector<CalibrationPoint> points;
  for (DeviceId d : {0, 2}) {
    const Placement p = all_on_device(f.problem, d);
    const double s = sim.evaluate(p).value().step_time_s;
    points.push_back({"alone", p, s, s * (d == 0 ? 3.0 : 0.5)});
  }
  // A mixed placement does not fit any device.
  Placement mixed = all_on_device(f.problem, 1);
  mixed.device_of_op[0] = 2;
  points.push_back({"mixed", mixed, 1.0, 7.0});
  const TimeScales s = fit_time_scales(f.problem, points);
  EXPECT_DOUBLE_EQ(s.scale[0], 3.0);
  EXPECT_DOUBLE_EQ(s.scale[1], 1.0);
  EXPECT_DOUBLE_EQ(s.scale[2], 0.5);
  EXPECT_EQ(s.fitted, (std::vector<bool>{true, false, true}));

  // The calibrated cluster simulates the single-device placements at their measured times.
  json::Json doc = cluster_to_json(f.cluster);
  for (int d = 0; d < 3; ++d) doc["devices"][d]["time_scale"] = s.scale[d];
  const Cluster calibrated = cluster_from_json(doc, "test").value();
  const Problem cp = Problem::create(f.graph, calibrated, *f.cost).value();
  Simulator csim(cp);
  EXPECT_NEAR(csim.evaluate(points[0].placement).value().step_time_s, points[0].measured_s, 1e-9 * points[0].measured_s);
  EXPECT_NEAR(csim.evaluate(points[1].placement).value().step_time_s, points[1].measured_s, 1e-9 * points[1].measured_s);
}

TEST(Calibration, NoMeasurementNoFit) {
  Fixture f;
  const Placement p = all_on_device(f.problem, 1);
  const TimeScales s = fit_time_scales(f.problem, {{"alone", p, 1.0, std::nan("")}});
  EXPECT_EQ(s.fitted, (std::vector<bool>{false, false, false}));
  EXPECT_DOUBLE_EQ(s.scale[1], 1.0);
}

TEST(Calibration, TimeScaleInClusterJsonIsPositive) {
  json::Json doc = cluster_to_json(testing::toy_cluster());
  doc["devices"][1]["time_scale"] = 0;
  const Result<Cluster> bad = cluster_from_json(doc, "c.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("devices[1].time_scale"), std::string::npos) << bad.error().message();
  doc["devices"][1]["time_scale"] = 2.5;
  const Cluster ok = cluster_from_json(doc, "c.json").value();
  EXPECT_DOUBLE_EQ(ok.device(1).time_scale, 2.5);
  EXPECT_EQ(cluster_to_json(ok)["devices"][1]["time_scale"], 2.5);
  EXPECT_FALSE(cluster_to_json(ok)["devices"][0].contains("time_scale"));
}

std::string fake_command() { return std::string("'") + FAKE_MEASURER + "'"; }

TEST(CalibrateCli, ComparesEveryPlacementAndFitsTheSingleDeviceOnes) {
  const auto out = testing::temp_file("calibrated.json");
  std::filesystem::remove(out);
  const testing::CliRun r = testing::devplace("calibrate --graph zoo:inception_v3 --cluster k80x2 --json --placements "
                                              "round-robin,m-etf --measure \"" + fake_command() + "\" --out-cluster '" +
                                              out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // /cpu:0, /gpu:0, /gpu:1 alone (host-only ops stay on the CPU), round-robin, m-etf.
  ASSERT_EQ(j["placements"].size(), 5u) << r.out;
  EXPECT_EQ(j["placements"][1]["placement"], "all on /gpu:0");
  EXPECT_EQ(j["measured"], 5);
  EXPECT_GE(j["spearman"].get<double>(), -1.0);
  EXPECT_LE(j["spearman"].get<double>(), 1.0);
  // Every op fits on the CPU alone, so its scale is fitted and its calibrated error is 0.
  EXPECT_TRUE(j["devices"]["/cpu:0"]["fitted"].get<bool>());
  EXPECT_NEAR(j["placements"][0]["calibrated_error_pct"].get<double>(), 0.0, 1e-6);
  // The fake measurer's times (1 ms per op on the busiest device) are far from the K80s' simulated ones.
  EXPECT_GT(j["mean_abs_error_pct"].get<double>(), 1.0);
  const Cluster written = read_cluster_file(out.string()).value();
  EXPECT_DOUBLE_EQ(written.device(0).time_scale, j["devices"]["/cpu:0"]["time_scale"].get<double>());
  EXPECT_EQ(j["measurer"]["measured"], 5);
}

TEST(CalibrateCli, TableAndBadInput) {
  const testing::CliRun r =
      testing::devplace("calibrate --graph zoo:inception_v3 --cluster k80x2 --placements m-etf --measure \"" + fake_command() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("all on /gpu:1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Spearman rank correlation"), std::string::npos) << r.out;
  const testing::CliRun no_measure = testing::devplace("calibrate --graph zoo:inception_v3 --cluster k80x2");
  EXPECT_EQ(no_measure.exit_code, 2);
  EXPECT_NE(no_measure.err.find("--measure: required"), std::string::npos) << no_measure.err;
  const testing::CliRun bad = testing::devplace("calibrate --graph zoo:inception_v3 --cluster k80x2 --placements nosuch --measure \"" +
                                                fake_command() + "\"");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--placements"), std::string::npos) << bad.err;
  // Every placement fails: nothing to compare.
  const testing::CliRun oom = testing::devplace("calibrate --graph zoo:inception_v3 --cluster k80x2 --placements m-etf --measure \"" +
                                                fake_command() + " --max-ops 1\"");
  EXPECT_EQ(oom.exit_code, 2);
  EXPECT_NE(oom.err.find("placements could be measured"), std::string::npos) << oom.err;
}

}  // namespace
}  // namespace devplace
