// File: graph.cc
// Graph queries and the names of the graph's enums.
#include "graph/graph.h"

#include <array>

namespace devplace {

namespace {
constexpr std::array<std::string_view, kNumDeviceKinds> kDeviceKindNames = {"cpu", "gpu"};

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int size_bytes;
  bool floating;
};
constexpr std::array<DTypeInfo, 9> kDTypes = {{
    {DType::kFloat32, "float32", 4, true},
    {DType::kFloat16, "float16", 2, true},
    {DType::kBFloat16, "bfloat16", 2, true},
    {DType::kFloat64, "float64", 8, true},
    {DType::kInt8, "int8", 1, false},
    {DType::kUInt8, "uint8", 1, false},
    {DType::kInt32, "int32", 4, false},
    {DType::kInt64, "int64", 8, false},
    {DType::kBool, "bool", 1, false},
}};
constexpr std::array<std::string_view, 3> kPhaseNames = {"forward", "backward", "update"};

const DTypeInfo& info(DType dtype) { return kDTypes[static_cast<int>(dtype)]; }
}  // namespace

std::string_view device_kind_name(DeviceKind kind) { return kDeviceKindNames[static_cast<int>(kind)]; }

std::optional<DeviceKind> parse_device_kind(std::string_view name) {
  for (int k = 0; k < kNumDeviceKinds; ++k) {
    if (kDeviceKindNames[k] == name) return static_cast<DeviceKind>(k);
  }
  return std::nullopt;
}

int dtype_size_bytes(DType dtype) { return info(dtype).size_bytes; }
bool dtype_is_floating(DType dtype) { return info(dtype).floating; }
std::string_view dtype_name(DType dtype) { return info(dtype).name; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const DTypeInfo& d : kDTypes) {
    if (d.name == name) return d.dtype;
  }
  return std::nullopt;
}

std::string_view op_phase_name(OpPhase phase) { return kPhaseNames[static_cast<int>(phase)]; }

std::optional<OpPhase> parse_op_phase(std::string_view name) {
  for (size_t i = 0; i < kPhaseNames.size(); ++i) {
    if (kPhaseNames[i] == name) return static_cast<OpPhase>(i);
  }
  return std::nullopt;
}

std::optional<OpId> Graph::find_op(std::string_view name) const {
  for (OpId i = 0; i < num_ops(); ++i) {
    if (ops_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<TensorId> Graph::find_tensor(std::string_view name) const {
  for (TensorId i = 0; i < num_tensors(); ++i) {
    if (tensors_[i].name == name) return i;
  }
  return std::nullopt;
}

double Graph::total_flops() const {
  double sum = 0;
  for (const Op& op : ops_) sum += op.flops;
  return sum;
}

int64_t Graph::total_parameter_bytes() const {
  int64_t sum = 0;
  for (const Op& op : ops_) sum += op.parameter_bytes;
  return sum;
}

bool Graph::has_backward() const {
  for (const Op& op : ops_) {
    if (op.phase != OpPhase::kForward) return true;
  }
  return false;
}

}  // namespace devplace
