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

}  // namespace
}  // namespace devplace
