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

size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t code = 0;
  if ((c & 0xe0) == 0xc0) n = 2, code = c & 0x1f;
  else if ((c & 0xf0) == 0xe0) n = 3, code = c & 0x0f;
  else if ((c & 0xf8) == 0xf0) n = 4, code = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
  static constexpr uint32_t kMinimum[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kMinimum[n] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return n;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string valid_utf8_or_replaced(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

namespace {

std::string escaped(std::string_view s, size_t max) {
  std::string out;
  size_t i = 0;
  for (; i < s.size() && out.size() < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // A whole UTF-8 character as it is; a byte that is not one, as \xNN.
      if (const size_t n = utf8_sequence_length(s, i); n > 0) {
        out.append(s.substr(i, n));
        i += n - 1;
      } else {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        out += hex;
      }
    }
    else if (c == '\n') out += "\\n";
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
