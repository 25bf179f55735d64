// Every searching placer (PlacerRole::kSearch, taken from the registry so
// that a new one is covered) keeps to its evaluation budget: run_placer's
// count of evaluator calls is at most the budget, and above zero, on small
// graphs, clusters and budgets. `devplace compare` relies on it to compare
// them at an equal budget. The learned placers are tested in tests/rl.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "../test_clusters.h"
#include "../test_graphs.h"
#include "cluster/cluster_json.h"
#include "cost/cost_model.h"
#include "place/run_placer.h"
#include "place/search.h"
#include "sim/simulator.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

std::vector<std::string> search_placers() {
  std::vector<std::string> names;
  for (const PlacerInfo& info : placer_registry()) {
    if (info.role == PlacerRole::kSearch) names.emplace_back(info.name);
  }
  return names;
}

TEST(Budget, TheRegistryHasSearchPlacers) {
  const std::vector<std::string> names = search_placers();
  EXPECT_NE(std::find(names.begin(), names.end(), "local-search"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "random-search"), names.end());
}

struct NamedCluster {
  std::string name;
  Cluster cluster;
};

TEST(Budget, SearchPlacersMakeAtMostTheirEvaluations) {
  setenv("DEVPLACE_CLUSTERS", DEVPLACE_CLUSTERS_DIR, 1);
  std::vector<NamedCluster> clusters;
  clusters.push_back({"toy", testing::toy_cluster()});
  clusters.push_back({"toy-700MB", testing::toy_cluster(700'000'000)});  // some placements run out of memory
  clusters.push_back({"k80x2", load_cluster("k80x2").value()});
  clusters.push_back({"k80x4", load_cluster("k80x4").value()});
  std::vector<Graph> graphs;
  graphs.push_back(testing::tiny_dag(3, 8));
  graphs.push_back(build_zoo_model("layered:layers=4,width=3").value());
  auto cost = make_default_cost_model();
  for (const Graph& g : graphs) {
    for (const NamedCluster& c : clusters) {
      Problem p = Problem::create(g, c.cluster, *cost).value();
      for (const std::string& method : search_placers()) {
        for (int64_t budget : {1, 2, 5, 50, 300}) {
          for (GroupingKind grouping : {GroupingKind::kPaper, GroupingKind::kColocation}) {
            Simulator sim(p);
            PlacerRunOptions options;
            options.budget.evaluations = budget;
            options.grouping.kind = grouping;
            Result<PlacerRun> run = run_placer(method, p, sim, options);
            const std::string where = method + " on " + g.name() + ", " + c.name + ", budget " + std::to_string(budget) +
                                      (grouping == GroupingKind::kPaper ? ", paper" : ", colocation") + " grouping";
            ASSERT_TRUE(run.ok()) << where << ": " << run.error().message();
            EXPECT_LE(run.value().evaluations, budget) << where;
            EXPECT_GT(run.value().evaluations, 0) << where;
          }
        }
      }
    }
  }
}

// best_fast_placement, local-search's start and the RL warm start, keeps to
// a budget by counting kMaxFastPlacerEvaluations per placer: no fast placer
// may take more.
TEST(Budget, NoFastPlacerTakesMoreThanTheCountedEvaluations) {
  setenv("DEVPLACE_CLUSTERS", DEVPLACE_CLUSTERS_DIR, 1);
  auto cost = make_default_cost_model();
  const Graph g = build_zoo_model("layered:layers=4,width=3").value();
  for (const Cluster& c : {testing::toy_cluster(), testing::toy_cluster(700'000'000), load_cluster("k80x4").value()}) {
    Problem p = Problem::create(g, c, *cost).value();
    const Grouping grouping = Grouping::create(p);
    int fast = 0;
    for (const PlacerInfo& info : placer_registry()) {
      if (info.role != PlacerRole::kPaperBaseline && info.role != PlacerRole::kAlgorithm) continue;
      ++fast;
      Simulator sim(p);
      Rng rng(1);
      ASSERT_TRUE(info.make()->place(PlaceContext{p, grouping, sim, Budget{}, rng}).ok()) << info.name;
      EXPECT_LE(sim.num_evaluations() + 1, kMaxFastPlacerEvaluations) << info.name;  // + 1: best_fast_placement's score
    }
    EXPECT_GE(fast, 5);
  }
}

TEST(Budget, ATimeLimitToo) {
  // Both limits: whichever ends first; the evaluations are still a ceiling.
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Graph g = testing::tiny_dag(5, 8);
  Problem p = Problem::create(g, c, *cost).value();
  for (const std::string& method : search_placers()) {
    Simulator sim(p);
    PlacerRunOptions options;
    options.budget = {60.0, 40};
    const PlacerRun run = run_placer(method, p, sim, options).value();
    EXPECT_LE(run.evaluations, 40) << method;
    EXPECT_GT(run.evaluations, 0) << method;
  }
}

}  // namespace
}  // namespace devplace
