// The structural checks parse_text makes before parsing (common/json_reader.h).
#include "common/json_reader.h"

#include <string>

#include <gtest/gtest.h>

namespace devplace::json {
namespace {

std::string error_of(const std::string& text) {
  Result<Json> r = parse_text(text, "t.json");
  return r.ok() ? "ok" : r.error().message();
}

TEST(JsonReader, RepeatedKeysInOneObjectAreErrors) {
  EXPECT_EQ(error_of(R"({"a": 1, "b": 2, "a": 3})"), "t.json:1:18: duplicate key \"a\" in one object");
  // The same key in different objects, and key-like text in strings, are fine.
  EXPECT_EQ(error_of(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}], "c": "\"a\": 1, \"a\": 2"})"), "ok");
  // A large object (a placement of many ops) is checked too.
  std::string big = "{";
  for (int i = 0; i < 1000; ++i) big += "\"op" + std::to_string(i) + "\": 0, ";
  EXPECT_EQ(error_of(big + "\"op999\": 1}"), "t.json:1:" + std::to_string(big.size() + 1) + ": duplicate key \"op999\" in one object");
  EXPECT_EQ(error_of(big + "\"last\": 1}"), "ok");
}

TEST(JsonReader, NestingIsBounded) {
  const std::string ok = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
  EXPECT_EQ(error_of(ok), "ok");
  const std::string deep = std::string(kMaxDepth + 1, '[') + std::string(kMaxDepth + 1, ']');
  EXPECT_EQ(error_of(deep), "t.json:1:" + std::to_string(kMaxDepth + 1) + ": JSON nested deeper than 256 levels");
  // Brackets inside strings do not count.
  EXPECT_EQ(error_of("[\"" + std::string(1000, '[') + "\"]"), "ok");
}

TEST(JsonReader, BriefKeepsMessagesShort) {
  EXPECT_EQ(brief(Json(std::string(100, 'x'))), "\"" + std::string(36, 'x') + "\"... (100 characters)");
  EXPECT_EQ(brief(Json::array({1, 2, 3, 4, 5, 6, 7, 8, 9})), "an array of 9 items");
  EXPECT_EQ(brief(Json(2.5)), "2.5");
}

}  // namespace
}  // namespace devplace::json
