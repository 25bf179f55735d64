// AnytimeEvaluator: passes every call on unchanged and records the best
// fitting step time after each milestone's number of evaluations.
#include <gtest/gtest.h>

#include <limits>

#include "../test_clusters.h"
#include "../test_graphs.h"
#include "cost/cost_model.h"
#include "place/anytime_evaluator.h"
#include "place/run_placer.h"
#include "sim/simulator.h"

namespace devplace {
namespace {

// Answers from a script, one per call: a step time, or OOM when negative.
class ScriptedEvaluator final : public Evaluator {
 public:
  explicit ScriptedEvaluator(std::vector<double> times) : times_(std::move(times)) {}
  std::string_view name() const override { return "scripted"; }
  Result<Evaluation> evaluate(const Placement&) override {
    const double t = times_.at(static_cast<size_t>(num_evaluations_++));
    Evaluation e;
    e.step_time_s = t < 0 ? -t : t;
    e.oom = t < 0;
    return e;
  }

 private:
  std::vector<double> times_;
};

TEST(AnytimeEvaluator, RecordsTheBestThatFitsAtEachMilestone) {
  // An OOM placement is faster than any that fits, and does not count.
  ScriptedEvaluator inner({5, 4, -1, 6, 3, 3.5, 2});
  AnytimeEvaluator anytime(inner, {1, 3, 5, 100});
  const Placement p{{0}};
  EXPECT_EQ(anytime.evaluate(p).value().step_time_s, 5);
  EXPECT_EQ(anytime.evaluate(p).value().step_time_s, 4);
  const std::vector<Result<Evaluation>> batch = anytime.evaluate_all(std::vector<Placement>(4, p), 2);
  ASSERT_EQ(batch.size(), 4u);
  EXPECT_TRUE(batch[0].value().oom);
  EXPECT_EQ(anytime.num_evaluations(), 6);
  const std::vector<std::pair<int64_t, double>> expected = {{1, 5.0}, {3, 4.0}, {5, 3.0}};  // 100 not reached
  EXPECT_EQ(anytime.best_after(), expected);
  EXPECT_EQ(anytime.name(), "scripted");
}

TEST(AnytimeEvaluator, NothingFitsYetIsInfinite) {
  ScriptedEvaluator inner({-1, -2});
  AnytimeEvaluator anytime(inner, {2});
  EXPECT_TRUE(anytime.evaluate(Placement{{0}}).ok());  // OOM placements: evaluated, but none fits
  EXPECT_TRUE(anytime.evaluate(Placement{{0}}).ok());
  ASSERT_EQ(anytime.best_after().size(), 1u);
  EXPECT_EQ(anytime.best_after()[0].second, std::numeric_limits<double>::infinity());
}

// A search through it finds what it finds without, and its answer is at
// most the best it had seen at its last milestone.
TEST(AnytimeEvaluator, ASearchThroughItIsUnchanged) {
  Graph graph = testing::tiny_dag(5, 12);
  Cluster cluster = testing::toy_cluster();
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  Problem problem = Problem::create(graph, cluster, *cost).value();
  Simulator plain(problem), inner(problem);
  PlacerRunOptions options;
  options.budget.evaluations = 300;
  const PlacerRun direct = run_placer("local-search", problem, plain, options).value();
  AnytimeEvaluator anytime(inner, default_milestones());
  const PlacerRun wrapped = run_placer("local-search", problem, anytime, options).value();
  EXPECT_EQ(wrapped.placement, direct.placement);
  ASSERT_EQ(anytime.best_after().size(), 1u);  // 250 of 300
  EXPECT_EQ(anytime.best_after()[0].first, 250);
  EXPECT_LE(wrapped.evaluation.step_time_s, anytime.best_after()[0].second);
}

}  // namespace
}  // namespace devplace
