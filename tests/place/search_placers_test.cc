// exhaustive, local-search and random-search: the true optimum of tiny
// graphs, and local search reaching it; random search repeatable, monotone in
// its evaluations, and never OOM when it drew a fitting placement; every placer on every zoo model and on imported graphs
// (PipeDream, ONNX): valid, deterministic, never faster than the lower bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "../test_clusters.h"
#include "../test_graphs.h"
#include "cluster/cluster_json.h"
#include "cost/cost_model.h"
#include "graph/builder.h"
#include "graph/training_step.h"
#include "io/graph_source.h"
#include "place/run_placer.h"
#include "place/search.h"
#include "sim/lower_bound.h"
#include "sim/simulator.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

double cost_of(const Problem& p, Simulator& sim, const Placement& pl) { return search_cost_s(p, sim.evaluate(pl).value()); }

TEST(SearchCost, AnyPlacementThatFitsRanksAboveEveryOneThatDoesNot) {
  // Steps far beyond the paper's 100 s penalty: a slow placement that fits
  // still beats a fast one that runs out of memory or could not be measured.
  Graph g = testing::tiny_dag(1, 5);
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  const std::vector<int64_t> fits(static_cast<size_t>(p.num_devices()), 0);
  std::vector<int64_t> over = fits;
  over[1] = p.cluster().device(1).memory_bytes + 1'000'000'000;
  const Evaluation slow{5000.0, false, false, fits};
  const Evaluation oom{0.5, true, false, over};
  const Evaluation failed{100.0, false, true, fits};
  EXPECT_LT(search_cost_s(p, slow), search_cost_s(p, oom));
  EXPECT_LT(search_cost_s(p, slow), search_cost_s(p, failed));
  EXPECT_TRUE(is_feasible_cost(search_cost_s(p, slow)));
  EXPECT_FALSE(is_feasible_cost(search_cost_s(p, oom)));
  // Among those that do not fit, the one over by less ranks higher.
  std::vector<int64_t> less = over;
  less[1] -= 500'000'000;
  EXPECT_LT(search_cost_s(p, Evaluation{0.5, true, false, less}), search_cost_s(p, oom));
}

TEST(Exhaustive, IsNoWorseThanAnyOtherPlacerOnTinyGraphs) {
  Cluster c = testing::toy_cluster(700'000'000);
  auto cost = make_default_cost_model();
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Graph g = testing::tiny_dag(seed, 6);
    Problem p = Problem::create(g, c, *cost).value();
    Simulator sim(p);
    PlacerRunOptions options;
    options.grouping.kind = GroupingKind::kColocation;
    const PlacerRun best = run_placer("exhaustive", p, sim, options).value();
    EXPECT_EQ(best.evaluations, 729) << "3^6 placements";
    // The others at the same budget (the learned ones would train for 3,200).
    options.budget.evaluations = 729;
    for (const PlacerInfo& info : placer_registry()) {
      Result<PlacerRun> other = run_placer(info.name, p, sim, options);
      if (info.name == "expert") {
        // The tiny graphs mark no layers: the expert placement is not defined.
        ASSERT_FALSE(other.ok());
        EXPECT_EQ(other.error().code(), ErrorCode::kNotApplicable);
        continue;
      }
      ASSERT_TRUE(other.ok()) << info.name << ": " << other.error().message();
      EXPECT_LE(search_cost_s(p, best.evaluation), cost_of(p, sim, other.value().placement) + 1e-12) << info.name << " seed " << seed;
    }
  }
}

TEST(Exhaustive, RefusesBeyondItsLimit) {
  Graph g = build_zoo_model("layered:layers=8,width=4").value();
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  Simulator sim(p);
  Result<PlacerRun> r = run_placer("exhaustive", p, sim);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message().find("it is for tiny graphs"), std::string::npos) << r.error().message();
}

TEST(LocalSearch, FindsTheExhaustiveOptimumOnEveryTinyGraph) {
  Cluster c = testing::toy_cluster(700'000'000);
  auto cost = make_default_cost_model();
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Graph g = testing::tiny_dag(seed, 7);
    Problem p = Problem::create(g, c, *cost).value();
    Simulator sim(p);
    PlacerRunOptions options;
    options.grouping.kind = GroupingKind::kColocation;
    const PlacerRun optimum = run_placer("exhaustive", p, sim, options).value();
    options.budget.evaluations = 1500;  // 3^7 = 2187 placements in all
    const PlacerRun found = run_placer("local-search", p, sim, options).value();
    EXPECT_NEAR(search_cost_s(p, found.evaluation), search_cost_s(p, optimum.evaluation), 1e-12) << "seed " << seed;
    EXPECT_LE(found.evaluations, 1500);
  }
}

TEST(LocalSearch, ReturnsAPlacementThatFitsWhenItSawOne) {
  // 700 MB devices and ops with 300 MB of parameters: single-gpu overflows,
  // the search must not.
  Cluster c = testing::toy_cluster(700'000'000);
  auto cost = make_default_cost_model();
  Graph g = testing::tiny_dag(3, 7);
  Problem p = Problem::create(g, c, *cost).value();
  Simulator sim(p);
  PlacerRunOptions options;
  options.budget.evaluations = 300;
  EXPECT_FALSE(run_placer("local-search", p, sim, options).value().evaluation.oom);
}

// The simulator, remembering the search cost and OOM of every placement it scored.
class RecordingEvaluator : public Evaluator {
 public:
  explicit RecordingEvaluator(const Problem& problem) : problem_(problem), sim_(problem) {}
  std::string_view name() const override { return "recording simulator"; }
  Result<Evaluation> evaluate(const Placement& placement) override {
    Result<Evaluation> e = sim_.evaluate(placement);
    if (e.ok()) {
      ++num_evaluations_;
      costs.push_back(search_cost_s(problem_, e.value()));
      oom.push_back(e.value().oom);
    }
    return e;
  }
  std::vector<double> costs;
  std::vector<bool> oom;

 private:
  const Problem& problem_;
  Simulator sim_;
};

TEST(RandomSearch, SameSeedSamePlacement) {
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Graph g = testing::tiny_dag(2, 10);
  Problem p = Problem::create(g, c, *cost).value();
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Simulator sim(p);
    PlacerRunOptions options;
    options.seed = seed;
    options.budget.evaluations = 40;
    options.grouping.kind = GroupingKind::kColocation;
    const PlacerRun a = run_placer("random-search", p, sim, options).value();
    const PlacerRun b = run_placer("random-search", p, sim, options).value();
    EXPECT_EQ(a.placement, b.placement) << "seed " << seed;
    EXPECT_EQ(a.evaluations, 40) << "seed " << seed;
    // Its first draw is random's placement for the seed.
    options.budget.evaluations = 1;
    EXPECT_EQ(run_placer("random-search", p, sim, options).value().placement, run_placer("random", p, sim, options).value().placement)
        << "seed " << seed;
  }
}

TEST(RandomSearch, MoreEvaluationsAreNeverWorse) {
  Cluster c = testing::toy_cluster(700'000'000);
  auto cost = make_default_cost_model();
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Graph g = testing::tiny_dag(seed, 10);
    Problem p = Problem::create(g, c, *cost).value();
    Simulator sim(p);
    PlacerRunOptions options;
    options.seed = seed;
    options.grouping.kind = GroupingKind::kColocation;
    double previous = 0;
    for (int64_t n : {1, 3, 10, 30, 100, 300}) {
      options.budget.evaluations = n;
      const PlacerRun run = run_placer("random-search", p, sim, options).value();
      EXPECT_EQ(run.evaluations, n);
      const double cost_s = search_cost_s(p, run.evaluation);
      if (n > 1) {
        EXPECT_LE(cost_s, previous) << "seed " << seed << ", " << n << " evaluations";
      }
      previous = cost_s;
    }
  }
}

TEST(RandomSearch, ReturnsTheBestItSawSoAPlacementThatFitsWhenItSawOne) {
  // 700 MB devices and ops of 300 MB parameters: some random placements fit,
  // some run out of memory.
  Cluster c = testing::toy_cluster(700'000'000);
  auto cost = make_default_cost_model();
  int runs_that_saw_both = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Graph g = testing::tiny_dag(seed, 9);
    Problem p = Problem::create(g, c, *cost).value();
    RecordingEvaluator recorder(p);
    PlacerRunOptions options;
    options.seed = seed;
    options.budget.evaluations = 30;
    options.grouping.kind = GroupingKind::kColocation;
    const PlacerRun run = run_placer("random-search", p, recorder, options).value();
    // The recorder also saw run_placer's final scoring of the result.
    ASSERT_EQ(recorder.costs.size(), 31u);
    recorder.costs.pop_back();
    recorder.oom.pop_back();
    const bool saw_fit = std::find(recorder.oom.begin(), recorder.oom.end(), false) != recorder.oom.end();
    const bool saw_oom = std::find(recorder.oom.begin(), recorder.oom.end(), true) != recorder.oom.end();
    runs_that_saw_both += saw_fit && saw_oom;
    if (saw_fit) {
      EXPECT_FALSE(run.evaluation.oom) << "seed " << seed;
    }
    EXPECT_DOUBLE_EQ(search_cost_s(p, run.evaluation), *std::min_element(recorder.costs.begin(), recorder.costs.end()))
        << "seed " << seed;
  }
  EXPECT_GE(runs_that_saw_both, 1) << "the cluster should make some placements fit and some not";
}

struct ModelCase {
  const char* name;     // test name
  const char* source;   // zoo:NAME, or a file under tests/
  bool training;        // expand a forward-only file
  const char* cluster;
};

class PlacersOnModels : public ::testing::TestWithParam<ModelCase> {};

TEST_P(PlacersOnModels, EveryPlacerIsValidDeterministicAndAboveTheLowerBound) {
  setenv("DEVPLACE_CLUSTERS", DEVPLACE_CLUSTERS_DIR, 1);
  const std::string source = GetParam().source;
  const std::string spec = source.rfind("zoo:", 0) == 0 ? source : std::string(DEVPLACE_TESTDATA_DIR) + "/" + source;
  GraphLoadOptions load;
  load.training = GetParam().training;
  Graph g = load_graph(spec, load).value();
  ASSERT_TRUE(g.has_backward());
  Cluster c = load_cluster(GetParam().cluster).value();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  const double bound = compute_lower_bound(p).value_s();
  Simulator sim(p);
  for (const PlacerInfo& info : placer_registry()) {
    if (info.role == PlacerRole::kReference || info.role == PlacerRole::kLearned) continue;  // tests/rl covers rl
    PlacerRunOptions options;
    options.budget.evaluations = 100;
    const PlacerRun a = run_placer(info.name, p, sim, options).value();
    const PlacerRun b = run_placer(info.name, p, sim, options).value();
    EXPECT_EQ(a.placement, b.placement) << info.name;
    EXPECT_GE(a.evaluation.step_time_s, bound * (1 - 1e-9)) << info.name;
    if (info.name != "cpu" && info.name != "random") {
      EXPECT_FALSE(a.evaluation.oom) << info.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, PlacersOnModels,
    ::testing::Values(ModelCase{"rnnlm_k80x2", "zoo:rnnlm", false, "k80x2"}, ModelCase{"nmt_k80x4", "zoo:nmt", false, "k80x4"},
                      ModelCase{"inception_v3_k80x4", "zoo:inception_v3", false, "k80x4"},
                      ModelCase{"resnet50_hetero", "zoo:resnet50", false, "hetero"},
                      ModelCase{"transformer_v100x8", "zoo:transformer", false, "v100x8"},
                      ModelCase{"pipedream_gnmt_k80x4", "io/testdata/pipedream/gnmt/graph.txt", false, "k80x4"},
                      ModelCase{"onnx_mobilenet_v2_k80x2", "io/testdata/onnx/mobilenet_v2.onnx", true, "k80x2"},
                      ModelCase{"onnx_lstm_a100x8", "io/testdata/onnx/lstm.onnx", true, "a100x8"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace devplace
