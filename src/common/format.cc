// File: format.cc
// Number formatting for tables and reports.
#include "common/format.h"

#include <cmath>
#include <cstdio>

namespace devplace {

namespace {
std::string printf_string(const char* fmt, double v, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v, unit);
  return buf;
}
}  // namespace

// Beyond the largest unit, three significant digits ("1.23e+20 s"): a
// table cell stays a dozen characters whatever the value.
std::string format_seconds(double s) {
  if (!std::isfinite(s)) return "inf";
  if (s >= 1e5) return printf_string("%.3g %s", s, "s");
  if (s >= 1) return printf_string("%.3f %s", s, "s");
  if (s >= 1e-3) return printf_string("%.3f %s", s * 1e3, "ms");
  return printf_string("%.1f %s", s * 1e6, "us");
}

std::string format_bytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (int64_t{1} << 60)) return printf_string("%.2f %s", b / std::ldexp(1.0, 60), "EiB");
  if (bytes >= (int64_t{1} << 50)) return printf_string("%.2f %s", b / std::ldexp(1.0, 50), "PiB");
  if (bytes >= (int64_t{1} << 40)) return printf_string("%.2f %s", b / std::ldexp(1.0, 40), "TiB");
  if (bytes >= (int64_t{1} << 30)) return printf_string("%.2f %s", b / (1 << 30), "GiB");
  if (bytes >= (int64_t{1} << 20)) return printf_string("%.1f %s", b / (1 << 20), "MiB");
  if (bytes >= (int64_t{1} << 10)) return printf_string("%.1f %s", b / (1 << 10), "KiB");
  return printf_string("%.0f %s", b, "B");
}

std::string format_flops(double flops) {
  if (!std::isfinite(flops)) return "inf FLOP";
  if (flops >= 1e21) return printf_string("%.3g %s", flops, "FLOP");
  if (flops >= 1e18) return printf_string("%.2f %s", flops / 1e18, "EFLOP");
  if (flops >= 1e15) return printf_string("%.2f %s", flops / 1e15, "PFLOP");
  if (flops >= 1e12) return printf_string("%.2f %s", flops / 1e12, "TFLOP");
  if (flops >= 1e9) return printf_string("%.2f %s", flops / 1e9, "GFLOP");
  if (flops >= 1e6) return printf_string("%.2f %s", flops / 1e6, "MFLOP");
  return printf_string("%.0f %s", flops, "FLOP");
}

std::string format_rate(double bytes_per_s) {
  if (bytes_per_s >= 1e15) return printf_string("%.3g %s", bytes_per_s, "B/s");
  if (bytes_per_s >= 1e12) return printf_string("%.1f %s", bytes_per_s / 1e12, "TB/s");
  return printf_string("%.1f %s", bytes_per_s / 1e9, "GB/s");
}

std::string format_ratio(double r) {
  if (!std::isfinite(r)) return "-";
  return std::fabs(r) >= 1e4 ? printf_string("%.3g%s", r, "x") : printf_string("%.2f%s", r, "x");
}

namespace {

std::string escaped(std::string_view s, size_t max) {
  std::string out;
  size_t i = 0;
  for (; i < s.size() && out.size() < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
    else out += static_cast<char>(c);
  }
  if (i < s.size()) out += "... (" + std::to_string(s.size()) + " characters)";
  return out;
}

}  // namespace

std::string quoted_value(std::string_view s, size_t max) { return escaped(s, max); }

std::string one_line(std::string_view message, size_t max) { return escaped(message, max); }

std::string pad_right(const std::string& s, size_t width) { return s.size() >= width ? s : s + std::string(width - s.size(), ' '); }
std::string pad_left(const std::string& s, size_t width) { return s.size() >= width ? s : std::string(width - s.size(), ' ') + s; }

}  // namespace devplace
