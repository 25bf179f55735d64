// ProgressEvaluator: passes every call on unchanged, counts as the
// evaluator under it does, and draws the evaluations and the best fitting
// step time on an enabled bar (nothing on a disabled one).
#include <gtest/gtest.h>

#include "../test_clusters.h"
#include "../test_graphs.h"
#include "common/progress.h"
#include "cost/cost_model.h"
#include "place/progress_evaluator.h"
#include "place/run_placer.h"
#include "sim/simulator.h"

namespace devplace {
namespace {

struct Fixture {
  Graph graph = testing::tiny_dag(5, 12);
  Cluster cluster = testing::toy_cluster();
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  Problem problem = Problem::create(graph, cluster, *cost).value();
};

TEST(ProgressEvaluator, PassesThroughAndDrawsTheBestStepTime) {
  Fixture f;
  Simulator inner(f.problem);
  Simulator reference(f.problem);
  ::testing::internal::CaptureStderr();
  {
    ProgressBar bar("search", /*enabled=*/true);
    ProgressEvaluator shown(inner, bar, Budget{0, 4});
    for (DeviceId d = 0; d < f.problem.num_devices(); ++d) {
      const Placement p{std::vector<DeviceId>(f.problem.num_ops(), d)};
      EXPECT_DOUBLE_EQ(shown.evaluate(p).value().step_time_s, reference.evaluate(p).value().step_time_s);
    }
    const std::vector<Placement> two(2, Placement{std::vector<DeviceId>(f.problem.num_ops(), 1)});
    EXPECT_EQ(shown.evaluate_all(two, 2).size(), 2u);
    EXPECT_EQ(shown.num_evaluations(), f.problem.num_devices() + 2);
    EXPECT_EQ(inner.num_evaluations(), shown.num_evaluations());
    EXPECT_EQ(shown.name(), "simulator");
    EXPECT_FALSE(shown.measures());
  }
  const std::string drawn = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(drawn.find("search ["), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("evaluations, best "), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("100%"), std::string::npos) << drawn;  // 5 of a budget of 4: capped at 100%
}

TEST(ProgressEvaluator, ASearchThroughItFindsWhatItFindsWithout) {
  Fixture f;
  Simulator plain(f.problem), inner(f.problem);
  PlacerRunOptions options;
  options.budget.evaluations = 200;
  const PlacerRun direct = run_placer("local-search", f.problem, plain, options).value();
  ::testing::internal::CaptureStderr();
  ProgressBar bar("local-search", /*enabled=*/false);
  ProgressEvaluator shown(inner, bar, options.budget);
  const PlacerRun wrapped = run_placer("local-search", f.problem, shown, options).value();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // a disabled bar draws nothing
  EXPECT_EQ(wrapped.placement, direct.placement);
  EXPECT_EQ(wrapped.evaluations, direct.evaluations);
}

}  // namespace
}  // namespace devplace
