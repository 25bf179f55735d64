// Bounded reads, atomic writes and output checks (common/file_io.h).
#include "common/file_io.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "../test_temp.h"

namespace devplace {
namespace {

TEST(FileIo, AFailedWriteLeavesTheOldFile) {
  const std::string path = testing::temp_file("kept.txt").string();
  ASSERT_TRUE(write_text_file(path, "old contents\n").ok());
  // The temporary file cannot be made (a folder has its name): the write
  // fails, and the old contents stay whole.
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  std::filesystem::create_directory(tmp);
  const Status s = write_text_file(path, "new contents that never land\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), path + ": cannot open for writing");
  EXPECT_EQ(read_text_file(path).value(), "old contents\n");
  std::filesystem::remove(tmp);
  // Then it works, and leaves no temporary file behind.
  ASSERT_TRUE(write_text_file(path, "new\n").ok());
  EXPECT_EQ(read_text_file(path).value(), "new\n");
  EXPECT_FALSE(std::filesystem::exists(tmp));
}

TEST(FileIo, AWriteThroughALinkReplacesItsTargetAndKeepsTheLink) {
  namespace fs = std::filesystem;
  const fs::path dir = testing::temp_file("links");
  fs::create_directories(dir / "real");
  const fs::path target = dir / "real" / "placement.json";
  ASSERT_TRUE(write_text_file(target.string(), "old\n").ok());
  fs::create_symlink("real/placement.json", dir / "link.json");  // relative, as `ln -s` makes them
  fs::create_symlink(dir / "link.json", dir / "link2.json");     // a link to a link
  ASSERT_TRUE(write_text_file((dir / "link2.json").string(), "new\n").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_TRUE(fs::is_symlink(dir / "link2.json"));
  EXPECT_EQ(read_text_file(target.string()).value(), "new\n");
  EXPECT_EQ(replacement_target((dir / "link2.json").string()), (dir / "real" / "placement.json").string());
  // A link to a file not yet there: the file is made, the link kept.
  fs::create_symlink("real/later.json", dir / "later.json");
  EXPECT_TRUE(check_output_path("--out", (dir / "later.json").string()).ok());
  ASSERT_TRUE(write_text_file((dir / "later.json").string(), "made\n").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "later.json"));
  EXPECT_EQ(read_text_file((dir / "real" / "later.json").string()).value(), "made\n");
  // A link into a folder that does not exist is refused before any work.
  fs::create_symlink("nowhere/x.json", dir / "dangling.json");
  EXPECT_FALSE(check_output_path("--out", (dir / "dangling.json").string()).ok());
  // A loop of links fails as one error, not a hang.
  fs::create_symlink("loop_b", dir / "loop_a");
  fs::create_symlink("loop_a", dir / "loop_b");
  EXPECT_FALSE(write_text_file((dir / "loop_a").string(), "x").ok());
  fs::remove_all(dir);
}

TEST(FileIo, ReadsAreBounded) {
  const std::string path = testing::temp_file("twenty.txt").string();
  ASSERT_TRUE(write_text_file(path, std::string(20, 'x')).ok());
  EXPECT_TRUE(read_text_file(path, 20).ok());
  const Result<std::string> big = read_text_file(path, 19);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message(), path + ": larger than the 19 bytes devplace reads");
  // An endless device stops at the limit, or at its first NUL for text.
  const Result<std::string> zero = read_text_file("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message(), "/dev/zero: not a text file (a NUL byte at offset 0)");
  const Result<std::string> endless = read_binary_file("/dev/zero", 3 << 20);
  ASSERT_FALSE(endless.ok());
  EXPECT_EQ(endless.error().message(), "/dev/zero: larger than the 3 MiB devplace reads");
  const std::string nul = testing::temp_file("nul.txt").string();
  ASSERT_TRUE(write_text_file(nul, std::string("ab\0c", 4)).ok());
  EXPECT_EQ(read_text_file(nul).error().message(), nul + ": not a text file (a NUL byte at offset 2)");
}

TEST(FileIo, OutputPathsAreCheckedBeforeWork) {
  const std::string dir = testing::temp_file("").string();
  EXPECT_TRUE(check_output_path("--out", testing::temp_file("fresh.json").string()).ok());
  EXPECT_EQ(check_output_path("--out", "/no/such/x.json").error().message(), "--out: /no/such/x.json: the folder /no/such does not exist");
  EXPECT_EQ(check_output_path("--trace", dir).error().message(), "--trace: " + dir + ": is a folder, not a file");
  EXPECT_EQ(check_output_path("--out", "").error().message(), "--out: expected a file name, got ''");
  EXPECT_TRUE(check_output_path("--out", "relative-in-cwd.json").ok());
}

}  // namespace
}  // namespace devplace
