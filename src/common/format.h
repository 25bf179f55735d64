// File: format.h
// Human-readable numbers for tables and reports: durations, bytes, FLOPs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace devplace {

std::string format_seconds(double s);        // "12.3 ms", "1.20 s", "45.0 us"
std::string format_bytes(int64_t bytes);     // "1.50 GiB", "12.0 MiB", "512 B"
std::string format_flops(double flops);      // "3.21 TFLOP", "12.0 GFLOP"
std::string format_rate(double bytes_per_s); // "12.0 GB/s"
std::string format_ratio(double r);          // "2.31x"; "-" for NaN or infinity
// Left- or right-aligned to `width` characters.
std::string pad_right(const std::string& s, size_t width);
std::string pad_left(const std::string& s, size_t width);

// The length of the UTF-8 character that starts at s[i] (1 to 4), or 0
// when the bytes there are not one (a stray continuation byte, a cut
// sequence, an overlong form, a surrogate).
size_t utf8_sequence_length(std::string_view s, size_t i);
// Whether `s` is well-formed UTF-8 (JSON strings must be).
bool is_valid_utf8(std::string_view s);
// `s` with each byte that is not part of a UTF-8 character replaced by
// U+FFFD.
std::string valid_utf8_or_replaced(std::string_view s);
// A value from the input, fit to quote in a one-line message: control
// characters and bytes that are not UTF-8 escaped (\n, \xNN) and, past
// `max` characters, cut with "... (N characters)".
std::string quoted_value(std::string_view s, size_t max = 80);
// A whole message made one line of at most `max` characters, as quoted_value.
std::string one_line(std::string_view message, size_t max = 2000);

}  // namespace devplace
