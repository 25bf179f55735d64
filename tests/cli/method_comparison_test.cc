// Which methods `devplace compare` runs by default: never the reference
// methods; the learned ones only for the paper suite, as its last columns;
// --methods overrides both.
#include "cli/method_comparison.h"

#include <algorithm>
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

}  // namespace
}  // namespace devplace::cli
