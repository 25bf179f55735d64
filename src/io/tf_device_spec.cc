// File: tf_device_spec.cc
// TensorFlow device strings (see internal/tf_device_spec.h).
#include "io/internal/tf_device_spec.h"

#include <cctype>
#include <charconv>
#include <vector>

#include "common/format.h"

namespace devplace {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A non-negative decimal number below 2^20, or nullopt.
std::optional<int> small_number(std::string_view s) {
  int n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || n < 0 || n >= (1 << 20)) return std::nullopt;
  return n;
}

}  // namespace

Result<TfDeviceSpec> parse_tf_device_spec(std::string_view text) {
  TfDeviceSpec spec;
  if (text.empty()) return spec;
  const std::string shown = "device '" + quoted_value(std::string(text)) + "'";
  if (text[0] == '@') {
    if (text.size() == 1) return invalid_input(shown + ": '@' names no node to co-locate with");
    spec.colocate_with = std::string(text.substr(1));
    return spec;
  }
  if (text[0] != '/') return invalid_input(shown + ": expected '/device:GPU:0', '/job:NAME/.../device:CPU:0', '/gpu:0' or '@node'");
  std::vector<std::string_view> parts;
  size_t start = 1;
  while (start <= text.size()) {
    const size_t slash = std::min(text.find('/', start), text.size());
    parts.push_back(text.substr(start, slash - start));
    start = slash + 1;
  }
  for (std::string_view part : parts) {
    const size_t colon = part.find(':');
    if (colon == std::string_view::npos) return invalid_input(shown + ": part '" + quoted_value(std::string(part)) + "' is not NAME:VALUE");
    const std::string key = lower(part.substr(0, colon));
    std::string_view value = part.substr(colon + 1);
    if (key == "job") continue;
    if (key == "replica" || key == "task") {
      if (!small_number(value)) return invalid_input(shown + ": " + key + ": expected a number, got '" + quoted_value(std::string(value)) + "'");
      continue;
    }
    std::string type = key;
    if (key == "device") {  // device:TYPE:ID or device:TYPE
      const size_t c = value.find(':');
      type = lower(value.substr(0, c));
      value = c == std::string_view::npos ? std::string_view("*") : value.substr(c + 1);
    }
    if (spec.kind) return invalid_input(shown + ": names two device types");
    if (type == "cpu") {
      spec.kind = DeviceKind::kCpu;
    } else if (type == "gpu") {
      spec.kind = DeviceKind::kGpu;
    } else {
      return invalid_input(shown + ": device type '" + quoted_value(type) + "': devplace places on CPU and GPU devices only");
    }
    if (value == "*") continue;
    const std::optional<int> index = small_number(value);
    if (!index) return invalid_input(shown + ": device index: expected a number or '*', got '" + quoted_value(std::string(value)) + "'");
    spec.index = *index;
  }
  return spec;
}

std::string devplace_device_name(DeviceKind kind, int index) {
  return "/" + std::string(device_kind_name(kind)) + ":" + std::to_string(index);
}

}  // namespace devplace
