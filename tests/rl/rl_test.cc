// rl: features, determinism, and what REINFORCE finds on tiny graphs
// against the exhaustive optimum.
#include <gtest/gtest.h>

#include <cstdio>

#include "../test_clusters.h"
#include "../test_graphs.h"
#include "cost/cost_model.h"
#include "place/run_placer.h"
#include "place/search.h"
#include "rl/features.h"
#include "sim/simulator.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

TEST(RlFeatures, OneRowPerGroupAllInUnitRange) {
  Graph g = build_zoo_model("layered:layers=6,width=3").value();
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  const Grouping grouping = Grouping::create(p);
  const rl::GroupFeatures f = rl::group_features(p, grouping);
  EXPECT_EQ(f.num_groups, grouping.num_groups());
  EXPECT_EQ(f.dim, rl::kTypeBuckets + 6 + 3);
  for (float v : f.values) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LE(v, 1.0f);
  }
  // The topological position runs from 0 to 1; the device flags match the grouping.
  EXPECT_EQ(f.at(0, rl::kTypeBuckets + 5), 0.0f);
  EXPECT_EQ(f.at(f.num_groups - 1, rl::kTypeBuckets + 5), 1.0f);
  for (int32_t grp = 0; grp < f.num_groups; ++grp) {
    for (DeviceId d = 0; d < 3; ++d) EXPECT_EQ(f.at(grp, rl::kTypeBuckets + 6 + d), grouping.allows(grp, d) ? 1.0f : 0.0f);
  }
}

PlacerRun run(const std::string& method, const Problem& p, Simulator& sim, int64_t evaluations, uint64_t seed) {
  PlacerRunOptions options;
  options.grouping.kind = GroupingKind::kColocation;
  options.budget.evaluations = evaluations;
  options.seed = seed;
  return run_placer(method, p, sim, options).value();
}

TEST(Rl, SameSeedSamePlacement) {
  Cluster c = testing::toy_cluster(700'000'000);
  auto cost = make_default_cost_model();
  Graph g = testing::tiny_dag(2, 7);
  Problem p = Problem::create(g, c, *cost).value();
  Simulator sim(p);
  const PlacerRun a = run("rl", p, sim, 161, 5);
  const PlacerRun b = run("rl", p, sim, 161, 5);
  EXPECT_EQ(a.placement, b.placement);
  EXPECT_EQ(a.evaluations, 161);  // 20 updates of 8 samples, then the greedy decode
}

TEST(Rl, NearTheExhaustiveOptimumOnTinyGraphs) {
  // Ten tiny graphs (7 ops, 3 devices: 2,187 placements), 40 updates of 8
  // samples each (321 evaluations, 15% of the space). Counts the graphs where
  // rl reaches the optimum, and requires it within 10% of it on most.
  Cluster c = testing::toy_cluster(700'000'000);
  auto cost = make_default_cost_model();
  int optimal = 0, close = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    Graph g = testing::tiny_dag(seed, 7);
    Problem p = Problem::create(g, c, *cost).value();
    Simulator sim(p);
    const double best = search_cost_s(p, run("exhaustive", p, sim, 0, 1).evaluation);
    const double found = search_cost_s(p, run("rl", p, sim, 321, seed).evaluation);
    EXPECT_GE(found, best - 1e-12);
    if (found <= best + 1e-12) ++optimal;
    if (found <= 1.1 * best) ++close;
  }
  std::printf("rl reached the exhaustive optimum on %d of 10 tiny graphs, within 10%% on %d\n", optimal, close);
  EXPECT_GE(close, 7);
}

}  // namespace
}  // namespace devplace
