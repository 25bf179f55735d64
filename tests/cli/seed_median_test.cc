// The medians of `devplace compare --seeds`: per method over the seeds,
// OOM counting as an infinite time, failed seeds left out.
#include "cli/seed_median.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace devplace::cli {
namespace {

MethodResult ran(const std::string& method, double step_s, bool oom = false, int64_t evaluations = 10,
                 std::vector<std::pair<int64_t, double>> best_after = {}) {
  MethodResult r;
  r.method = method;
  r.role = PlacerRole::kSearch;
  PlacerRun run;
  run.method = method;
  run.placement.device_of_op = {1, 2};
  run.evaluation.step_time_s = step_s;
  run.evaluation.oom = oom;
  run.search_time_s = step_s * 10;
  run.evaluations = evaluations;
  r.run = run;
  r.best_after = std::move(best_after);
  return r;
}

MethodResult failed(const std::string& method, const std::string& error) {
  MethodResult r;
  r.method = method;
  r.error = error;
  return r;
}

Comparison of(std::vector<MethodResult> results) {
  Comparison c;
  c.lower_bound.load_s = 0.5;
  c.best_paper_baseline_s = 2.0;
  c.results = std::move(results);
  return c;
}

TEST(SeedMedian, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_TRUE(std::isinf(median({1.0, std::numeric_limits<double>::infinity()})));
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(SeedMedian, PerMethodMediansWithOomAndFailures) {
  const std::vector<Comparison> seeds = {
      of({ran("a", 1.0, false, 10, {{250, 1.5}, {1000, 1.0}}), ran("b", 3.0), ran("c", 1.0, true), failed("d", "boom")}),
      of({ran("a", 3.0, false, 12, {{250, 3.5}}), ran("b", 1.0, true), ran("c", 1.1, true), failed("d", "bang")}),
      of({ran("a", 2.0, false, 11, {{250, 2.5}, {1000, 2.0}}), failed("b", "crash"), ran("c", 0.9), failed("d", "boom")}),
  };
  const Comparison m = median_over_seeds(seeds);
  ASSERT_EQ(m.results.size(), 4u);
  // a: the middle of 1, 3, 2; the most evaluations; a milestone only where every seed reached it.
  ASSERT_TRUE(m.results[0].run);
  EXPECT_DOUBLE_EQ(m.results[0].run->evaluation.step_time_s, 2.0);
  EXPECT_FALSE(m.results[0].run->evaluation.oom);
  EXPECT_DOUBLE_EQ(m.results[0].run->search_time_s, 20.0);
  EXPECT_EQ(m.results[0].run->evaluations, 12);
  EXPECT_TRUE(m.results[0].run->placement.device_of_op.empty());  // a median has no placement
  ASSERT_EQ(m.results[0].best_after.size(), 1u);
  EXPECT_EQ(m.results[0].best_after[0].first, 250);
  EXPECT_DOUBLE_EQ(m.results[0].best_after[0].second, 2.5);
  EXPECT_DOUBLE_EQ(m.results[0].ratio_to_lower_bound, 4.0);
  EXPECT_DOUBLE_EQ(m.results[0].speedup_over_paper_baselines, 1.0);
  // b: failed on seed 3, left out; of 3 s and OOM the median is OOM (infinite).
  ASSERT_TRUE(m.results[1].run);
  EXPECT_TRUE(m.results[1].run->evaluation.oom);
  EXPECT_DOUBLE_EQ(m.results[1].run->evaluation.step_time_s, 2.0);  // the median of the times simulated anyway
  EXPECT_TRUE(std::isnan(m.results[1].speedup_over_paper_baselines));
  EXPECT_TRUE(m.results[1].error.empty());
  // c: OOM on two seeds of three: OOM.
  ASSERT_TRUE(m.results[2].run);
  EXPECT_TRUE(m.results[2].run->evaluation.oom);
  // d: failed on every seed: failed, with the first seed's error.
  EXPECT_FALSE(m.results[3].run);
  EXPECT_EQ(m.results[3].error, "boom");
  EXPECT_DOUBLE_EQ(m.lower_bound.value_s(), 0.5);
  EXPECT_DOUBLE_EQ(m.best_paper_baseline_s, 2.0);
}

TEST(SeedMedian, ParsesSeedLists) {
  EXPECT_EQ(parse_seeds("1,2,3").value(), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(parse_seeds("42").value(), (std::vector<uint64_t>{42}));
  for (const char* bad : {"", "1,", ",1", "1,,2", "-1", "1.5", "0", "1,1", "99999999999999999999"}) {
    EXPECT_FALSE(parse_seeds(bad).ok()) << bad;
  }
  EXPECT_FALSE(parse_seeds("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17").ok());
  EXPECT_TRUE(parse_seeds("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16").ok());
}

}  // namespace
}  // namespace devplace::cli
