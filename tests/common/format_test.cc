// Table numbers stay short whatever their size (common/format.h).
#include "common/format.h"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace devplace {
namespace {

TEST(Format, HugeValuesKeepAUnitAndAShortCell) {
  EXPECT_EQ(format_seconds(0.4633), "463.300 ms");
  EXPECT_EQ(format_seconds(1e60), "1e+60 s");
  EXPECT_EQ(format_seconds(123456.0), "1.23e+05 s");
  EXPECT_EQ(format_bytes(int64_t{12} << 30), "12.00 GiB");
  EXPECT_EQ(format_bytes(std::numeric_limits<int64_t>::max()), "8.00 EiB");
  EXPECT_EQ(format_bytes(int64_t{3} << 40), "3.00 TiB");
  EXPECT_EQ(format_flops(2e30), "2e+30 FLOP");
  EXPECT_EQ(format_flops(5e15), "5.00 PFLOP");
  EXPECT_EQ(format_rate(1e300), "1e+300 B/s");
  EXPECT_EQ(format_ratio(2.314), "2.31x");
  EXPECT_EQ(format_ratio(1e50), "1e+50x");
  for (const std::string& cell : {format_seconds(1e300), format_bytes(std::numeric_limits<int64_t>::max()), format_flops(1e300),
                                  format_rate(1e300), format_ratio(1e300)}) {
    EXPECT_LE(cell.size(), 12u) << cell;
  }
}

TEST(Format, Utf8IsCheckedCharacterByCharacter) {
  EXPECT_TRUE(is_valid_utf8("conv1/weights"));
  EXPECT_TRUE(is_valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // é € 😀
  for (const char* bad : {"a\xff", "\x80", "\xc3", "\xe2\x82", "\xc0\xaf" /* overlong '/' */, "\xed\xa0\x80" /* surrogate */,
                          "\xf4\x90\x80\x80" /* past U+10FFFF */}) {
    EXPECT_FALSE(is_valid_utf8(bad)) << quoted_value(bad);
  }
  EXPECT_EQ(valid_utf8_or_replaced("b\xfe" "d\xc3\xa9"), "b\xef\xbf\xbd" "d\xc3\xa9");
  // Messages keep whole characters and show stray bytes as \xNN.
  EXPECT_EQ(quoted_value("node\xff\xc3\xa9\n"), "node\\xff\xc3\xa9\\n");
  EXPECT_TRUE(is_valid_utf8(one_line(std::string("x\xc3\xa9\xe2\x82", 6))));
}

}  // namespace
}  // namespace devplace
