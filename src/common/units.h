// File: units.h
// Unit constants. Every quantity in devplace is in SI base units: seconds,
// bytes, FLOPs, bytes per second, FLOP/s. Names carry the unit (latency_s,
// memory_bytes); these constants only make literals readable.
#pragma once

#include <cstdint>

namespace devplace::units {

inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;
inline constexpr int64_t kKiB = int64_t{1} << 10;
inline constexpr int64_t kMiB = int64_t{1} << 20;
inline constexpr int64_t kGiB = int64_t{1} << 30;
inline constexpr double kMicrosecond = 1e-6;
inline constexpr double kMillisecond = 1e-3;

}  // namespace devplace::units
