// Which methods `devplace compare` runs by default: never the reference
// methods; the learned ones only for the paper suite, as its last columns;
// --methods overrides both.
#include "cli/method_comparison.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "place/placer.h"
#include "rl/rl_library.h"

namespace devplace::cli {
namespace {

// rl and hierarchical run by name, as the CLI runs them.
[[maybe_unused]] const bool kLearnedRegistered = (register_learned_placers(), true);

std::vector<std::string> registered(bool (*keep)(PlacerRole)) {
  std::vector<std::string> names;
  for (const PlacerInfo& info : placer_registry()) {
    if (keep(info.role)) names.emplace_back(info.name);
  }
  return names;
}

bool is_learned(PlacerRole role) { return role == PlacerRole::kLearned; }
bool is_compared(PlacerRole role) { return role != PlacerRole::kLearned && role != PlacerRole::kReference; }

bool contains(const std::vector<std::string>& v, const std::string& name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

TEST(ResolveMethods, DefaultLeavesOutReferenceAndLearnedMethods) {
  Result<std::vector<std::string>> methods = resolve_methods(std::nullopt);
  ASSERT_TRUE(methods.ok()) << methods.error().message();
  EXPECT_EQ(methods.value(), registered(&is_compared));
  EXPECT_FALSE(contains(methods.value(), "rl"));
  EXPECT_FALSE(contains(methods.value(), "exhaustive"));
  EXPECT_TRUE(contains(methods.value(), "cpu"));
  EXPECT_TRUE(contains(methods.value(), "local-search"));
  EXPECT_TRUE(contains(methods.value(), "random-search"));
}

TEST(ResolveMethods, SearchingMethodsAreTheSearchAndLearnedRoles) {
  for (const PlacerInfo& info : placer_registry())
    EXPECT_EQ(is_searching(info.role), info.role == PlacerRole::kSearch || info.role == PlacerRole::kLearned) << info.name;
  EXPECT_GT(kDefaultCompareEvaluations, 0);
}

TEST(ResolveMethods, WithLearnedAppendsTheLearnedMethodsLast) {
  Result<std::vector<std::string>> methods = resolve_methods(std::nullopt, /*with_learned=*/true);
  ASSERT_TRUE(methods.ok()) << methods.error().message();
  std::vector<std::string> expected = registered(&is_compared);
  const std::vector<std::string> learned = registered(&is_learned);
  ASSERT_TRUE(contains(learned, "rl"));
  expected.insert(expected.end(), learned.begin(), learned.end());
  EXPECT_EQ(methods.value(), expected);
  EXPECT_EQ(methods.value()[methods.value().size() - learned.size()], learned.front());
  EXPECT_FALSE(contains(methods.value(), "exhaustive"));
}

TEST(ResolveMethods, ListOverridesTheDefaultsInTheOrderGiven) {
  for (bool with_learned : {false, true}) {
    Result<std::vector<std::string>> methods = resolve_methods(std::string("rl,cpu,exhaustive"), with_learned);
    ASSERT_TRUE(methods.ok()) << methods.error().message();
    EXPECT_EQ(methods.value(), (std::vector<std::string>{"rl", "cpu", "exhaustive"}));
    Result<std::vector<std::string>> only_cpu = resolve_methods(std::string("cpu"), with_learned);
    ASSERT_TRUE(only_cpu.ok());
    EXPECT_EQ(only_cpu.value(), std::vector<std::string>{"cpu"});
  }
}

// A learned row's policy at the end survives --json and --reuse: the
// answer read back holds the same figures, null ones included.
TEST(MethodResultJson, FinalPolicyRoundTrips) {
  MethodResult r;
  r.method = "rl";
  r.role = PlacerRole::kLearned;
  PlacerRun run;
  run.method = "rl";
  run.evaluation.step_time_s = 0.4;
  run.search_time_s = 2.0;
  run.evaluations = 1601;
  FinalPolicy f;
  f.updates = 100;
  f.samples = 16;
  f.mean_sample_step_s = 0.45;
  f.fit_fraction = 0.75;
  f.entropy_per_decision = 0.02;
  f.greedy_step_s = 0.5;
  f.greedy_oom = true;
  run.final_policy = f;
  r.run = run;
  r.ratio_to_lower_bound = 2.0;
  r.speedup_over_paper_baselines = 1.1;
  const json::Json answer = {{"best_paper_baseline_s", 0.5}, {"results", {method_result_json(r)}}};
  Result<Comparison> back = comparison_from_json(answer, "answer.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  const std::optional<FinalPolicy>& g = back.value().results[0].run->final_policy;
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->updates, 100);
  EXPECT_EQ(g->samples, 16);
  EXPECT_DOUBLE_EQ(g->mean_sample_step_s, 0.45);
  EXPECT_DOUBLE_EQ(g->fit_fraction, 0.75);
  EXPECT_DOUBLE_EQ(g->entropy_per_decision, 0.02);
  ASSERT_TRUE(g->greedy_step_s.has_value());
  EXPECT_DOUBLE_EQ(*g->greedy_step_s, 0.5);
  EXPECT_TRUE(g->greedy_oom);
  const std::string table = final_policies_table({{"row", &back.value()}});
  EXPECT_NE(table.find("450.000 ms"), std::string::npos) << table;
  EXPECT_NE(table.find("12/16"), std::string::npos) << table;
  EXPECT_NE(table.find("OOM"), std::string::npos) << table;
  EXPECT_EQ(final_policy_line(*g), "after 100 updates, its last 16 samples average 450.000 ms (12 fit; entropy 0.020 nats per "
                                   "decision); its greedy decode 500.000 ms (OOM)");
  FinalPolicy none_fit = *g;
  none_fit.fit_fraction = 0;
  EXPECT_EQ(final_policy_line(none_fit), "after 100 updates, none of its last 16 samples fits (entropy 0.020 nats per decision); "
                                         "its greedy decode 500.000 ms (OOM)");

  // No samples and no greedy decode (a run stopped at once): nulls, and back.
  f = FinalPolicy{};
  r.run->final_policy = f;
  const json::Json empty = method_result_json(r)["final_policy"];
  EXPECT_TRUE(empty["mean_sample_step_time_s"].is_null());
  EXPECT_TRUE(empty["greedy_step_time_s"].is_null());
  Result<Comparison> none = comparison_from_json({{"best_paper_baseline_s", 0.5}, {"results", {method_result_json(r)}}}, "a.json");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.value().results[0].run->final_policy->greedy_step_s.has_value());
  EXPECT_TRUE(std::isnan(none.value().results[0].run->final_policy->mean_sample_step_s));
}

}  // namespace
}  // namespace devplace::cli
