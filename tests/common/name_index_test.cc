// NameIndex: insert, find, duplicates, growth, names that share prefixes.
#include "common/name_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace devplace {
namespace {

TEST(NameIndex, FindsWhatWasInsertedAndRefusesDuplicates) {
  NameIndex index;
  EXPECT_EQ(index.find("a"), -1);
  EXPECT_EQ(index.insert("a", 0), std::make_pair(0, true));
  EXPECT_EQ(index.insert("b", 1), std::make_pair(1, true));
  EXPECT_EQ(index.insert("a", 7), std::make_pair(0, false));  // the first id stays
  EXPECT_EQ(index.find("a"), 0);
  EXPECT_EQ(index.find("b"), 1);
  EXPECT_EQ(index.find(""), -1);
  EXPECT_EQ(index.insert("", 2), std::make_pair(2, true));  // the empty name is a name
  EXPECT_EQ(index.find(""), 2);
  EXPECT_EQ(index.size(), 3u);
}

TEST(NameIndex, KeepsEveryNameThroughGrowth) {
  // Names that differ only at the end, in a table that starts small and grows many times.
  std::vector<std::string> names;
  for (int i = 0; i < 100000; ++i) names.push_back("layer/" + std::to_string(i % 97) + "/op:" + std::to_string(i));
  NameIndex index;
  for (int i = 0; i < static_cast<int>(names.size()); ++i) ASSERT_TRUE(index.insert(names[i], i).second) << names[i];
  EXPECT_EQ(index.size(), names.size());
  for (int i = 0; i < static_cast<int>(names.size()); ++i) ASSERT_EQ(index.find(names[i]), i);
  EXPECT_EQ(index.find("layer/0/op:100000"), -1);
  EXPECT_EQ(index.find("layer/0/op:"), -1);
}

}  // namespace
}  // namespace devplace
