// ProgressBar::render: the bar's fill, the percentage, the caller's status
// text and the time left; and that a disabled bar draws nothing.
#include "common/progress.h"

#include <string>

#include <gtest/gtest.h>

namespace devplace {
namespace {

TEST(ProgressBar, RenderShowsFillPercentStatusAndEta) {
  // A quarter done after 30 s: 6 of 24 cells, 90 s to go.
  EXPECT_EQ(ProgressBar::render("rl", 5, 0.25, 30, "best 1.0 ms"),
            "rl [" + std::string(6, '#') + std::string(18, '.') + "] 5  25%  best 1.0 ms  ETA 1m30s");
}

TEST(ProgressBar, RenderWithoutStatusOrProgress) {
  // Nothing done yet: an empty bar and no estimate.
  EXPECT_EQ(ProgressBar::render("train", 0, 0.0, 12, ""), "train [" + std::string(24, '.') + "] 0   0%  ETA ?");
}

TEST(ProgressBar, RenderClampsTheFractionAndCountsHours) {
  EXPECT_EQ(ProgressBar::render("rl", 100, 1.7, 10, "done"), "rl [" + std::string(24, '#') + "] 100 100%  done  ETA 0m00s");
  EXPECT_EQ(ProgressBar::render("rl", 1, -0.5, 10, ""), "rl [" + std::string(24, '.') + "] 1   0%  ETA ?");
  // Half done after an hour: an hour to go.
  EXPECT_EQ(ProgressBar::render("rl", 7, 0.5, 3600, ""), "rl [" + std::string(12, '#') + std::string(12, '.') + "] 7  50%  ETA 1h00m");
  // 1/3 rounds to 8 cells and 33%; 20 s for a third leaves 40 s.
  EXPECT_EQ(ProgressBar::render("rl", 3, 1.0 / 3, 20, "x"), "rl [" + std::string(8, '#') + std::string(16, '.') + "] 3  33%  x  ETA 0m40s");
}

TEST(ProgressBar, DisabledBarPrintsNothing) {
  testing::internal::CaptureStderr();
  {
    ProgressBar bar("rl", /*enabled=*/false);
    bar.update(1, 0.5, "status");
    bar.update(2, 1.0, "status");
    bar.finish();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(ProgressBar, EnabledBarRedrawsOneLineAndEndsIt) {
  testing::internal::CaptureStderr();
  {
    ProgressBar bar("rl", /*enabled=*/true);
    bar.update(1, 1.0, "last");
  }  // the destructor ends the line
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.front(), '\r');
  EXPECT_NE(err.find("] 1 100%  last  ETA"), std::string::npos) << err;
  EXPECT_EQ(err.back(), '\n');
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
}

}  // namespace
}  // namespace devplace
