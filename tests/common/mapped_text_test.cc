// MappedText: a file's text with readable padding, from a mapping or a read.
#include "common/mapped_text.h"

#include <gtest/gtest.h>

#include <string>

#include "../test_temp.h"

namespace devplace {
namespace {

void expect_padded(const MappedText& m) {
  // Every padding byte is readable (a fault here would crash the test).
  unsigned sum = 0;
  for (size_t i = 0; i < MappedText::kPadding; ++i) sum += static_cast<unsigned char>(m.text().data()[m.text().size() + i]);
  (void)sum;
}

TEST(MappedText, GivesTheFileAndReadablePaddingAtEverySizeAroundAPage) {
  const std::string path = testing::temp_file("mapped.txt").string();
  for (size_t size : {size_t{1}, size_t{63}, size_t{4031}, size_t{4032}, size_t{4033}, size_t{4095}, size_t{4096},
                      size_t{4097}, size_t{8192}, size_t{1} << 20}) {
    SCOPED_TRACE(size);
    std::string text(size, 'x');
    text.front() = '{';
    text.back() = '}';
    ASSERT_TRUE(write_text_file(path, text).ok());
    Result<MappedText> m = map_text_file(path);
    ASSERT_TRUE(m.ok()) << m.error().message();
    EXPECT_EQ(m.value().text(), text);
    expect_padded(m.value());
    MappedText moved = std::move(m).value();  // the mapping moves with it
    EXPECT_EQ(moved.text(), text);
  }
}

TEST(MappedText, ReadsWhatCannotBeMappedAndChecksAsReadTextFileDoes) {
  const std::string path = testing::temp_file("mapped_empty.txt").string();
  ASSERT_TRUE(write_text_file(path, "").ok());
  Result<MappedText> empty = map_text_file(path);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty.value().text(), "");
  expect_padded(empty.value());

  ASSERT_TRUE(write_text_file(path, std::string("ab\0cd", 5)).ok());
  Result<MappedText> nul = map_text_file(path);
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.error().message(), path + ": not a text file (a NUL byte at offset 2)");

  Result<MappedText> missing = map_text_file(path + ".missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), path + ".missing: cannot read file");

  ASSERT_TRUE(write_text_file(path, std::string(100, 'x')).ok());
  Result<MappedText> large = map_text_file(path, 99);
  ASSERT_FALSE(large.ok());
  EXPECT_EQ(large.error().message(), path + ": larger than the 99 bytes devplace reads");

  Result<MappedText> folder = map_text_file(testing::ScratchDir::path().string());
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().message(), testing::ScratchDir::path().string() + ": cannot read file (a folder)");
}

}  // namespace
}  // namespace devplace
