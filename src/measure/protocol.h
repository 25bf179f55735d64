// File: protocol.h
// The measurer protocol's messages (docs/measurer.md): the JSON lines
// devplace sends, and the parsing of the measurer's answers, with errors
// that say what was wrong with a line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace::measure_protocol {

inline constexpr int kVersion = 1;
// The longest step time and the largest peak memory a measurer may report:
// a week, and 2^60 bytes. Beyond them (1e308) the answer is garbage, and
// it would poison the search's sums and the policy's rewards.
inline constexpr double kMaxStepTimeS = 7 * 24 * 3600.0;
inline constexpr double kMaxPeakBytes = 1152921504606846976.0;  // 2^60

// {"type": "hello", ...}: the graph (source, op names in op order) and the devices.
std::string hello(const Problem& problem, const std::string& graph_source, int warmup, int repeats);
// {"type": "measure", "id": ID, "placement": [...]}
std::string measure(int64_t id, const Placement& placement);
// {"type": "bye"}
std::string bye();

// The answer to hello: ready (with the measurer's name) or its error message.
struct ReadyAnswer {
  bool ready = false;
  std::string text;  // the measurer's name when ready, else its error message
};
// Fails, with what is wrong, on a line that is neither.
Result<ReadyAnswer> parse_ready(const std::string& line);

// The answer to a measure request.
struct MeasureAnswer {
  enum class Kind { kOk, kOom, kError };
  Kind kind = Kind::kOk;
  double step_time_s = 0;
  std::vector<int64_t> peak_memory_bytes;  // empty when the measurer gave none
  std::string message;                     // oom and error: the measurer's words
  std::string device;                      // oom: the device that ran out, if given
};
// Fails, with what is wrong, on a line that is not a result for `id`, or
// whose fields are missing or out of range.
Result<MeasureAnswer> parse_result(const std::string& line, int64_t id, int num_devices);

const char* kind_name(MeasureAnswer::Kind kind);  // "ok", "oom", "error"

}  // namespace devplace::measure_protocol
