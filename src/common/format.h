// File: format.h
// Human-readable numbers for tables and reports: durations, bytes, FLOPs.
#pragma once

#include <cstdint>
#include <string>

namespace devplace {

std::string format_seconds(double s);        // "12.3 ms", "1.20 s", "45.0 us"
std::string format_bytes(int64_t bytes);     // "1.50 GiB", "12.0 MiB", "512 B"
std::string format_flops(double flops);      // "3.21 TFLOP", "12.0 GFLOP"
std::string format_rate(double bytes_per_s); // "12.0 GB/s"
std::string format_ratio(double r);          // "2.31x"; "-" for NaN or infinity
// Left- or right-aligned to `width` characters.
std::string pad_right(const std::string& s, size_t width);
std::string pad_left(const std::string& s, size_t width);

}  // namespace devplace
