// File: native_json_fast.cc
// The simdjson fast path of the native JSON graph reader. Every check of
// the checked reader (native_json.cc) is here as a reason to decline, never
// as an error message: `std::nullopt` hands the text back to it.
#include "io/native_json_fast.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/json_reader.h"
#include "common/name_index.h"
#include "graph/builder.h"

namespace devplace {

namespace {

namespace dom = simdjson::dom;
using dom::element_type;

// Declines: the checked reader decides.
struct Decline {};

// The members of one object by their index in `keys`; declines on a key not
// in `keys` and on a key given twice (the checked reader names both cases).
template <size_t N>
class Members {
 public:
  Members(dom::object obj, const std::array<std::string_view, N>& keys) {
    for (dom::key_value_pair field : obj) {
      size_t k = 0;
      while (k < N && keys[k] != field.key) ++k;
      if (k == N || present_[k]) throw Decline{};
      present_[k] = true;
      values_[k] = field.value;
    }
  }
  bool has(size_t k) const { return present_[k]; }
  dom::element get(size_t k) const {
    if (!present_[k]) throw Decline{};
    return values_[k];
  }

 private:
  std::array<bool, N> present_{};
  std::array<dom::element, N> values_{};
};

dom::object as_object(dom::element e) {
  dom::object obj;
  if (e.get(obj) != simdjson::SUCCESS) throw Decline{};
  return obj;
}

dom::array as_array(dom::element e) {
  dom::array arr;
  if (e.get(arr) != simdjson::SUCCESS) throw Decline{};
  return arr;
}

std::string_view as_string(dom::element e) {
  std::string_view s;
  if (e.get(s) != simdjson::SUCCESS) throw Decline{};
  return s;
}

// A finite number >= 0 (> 0 if `positive`), as json::get_nonnegative reads it.
double as_number(dom::element e, bool positive = false) {
  double d = 0;
  switch (e.type()) {
    case element_type::INT64: d = static_cast<double>(int64_t(e)); break;
    case element_type::UINT64: d = static_cast<double>(uint64_t(e)); break;
    case element_type::DOUBLE: d = double(e); break;
    default: throw Decline{};
  }
  if (!std::isfinite(d) || !(d >= 0) || (positive && d == 0)) throw Decline{};
  return d;
}

// An integer written as one (the checked reader also takes 4.0 and 1e3: it decides those).
int64_t as_int(dom::element e, int64_t min_value) {
  if (e.type() != element_type::INT64) throw Decline{};
  const int64_t i = int64_t(e);
  if (i < min_value) throw Decline{};
  return i;
}

DeviceKind as_device_kind(dom::element e) {
  std::optional<DeviceKind> kind = parse_device_kind(as_string(e));
  if (!kind) throw Decline{};
  return *kind;
}

// A value the format keeps but does not read ("export"): nesting and
// repeated keys are checked as the checked reader checks the whole text.
void check_plain(dom::element e, int depth) {
  if (depth >= json::kMaxDepth) throw Decline{};
  if (e.is_array()) {
    for (dom::element v : dom::array(e)) check_plain(v, depth + 1);
  } else if (e.is_object()) {
    std::vector<std::string_view> keys;
    for (dom::key_value_pair field : dom::object(e)) {
      for (std::string_view k : keys) {
        if (k == field.key) throw Decline{};
      }
      keys.push_back(field.key);
      check_plain(field.value, depth + 1);
    }
  }
}

std::array<double, kNumDeviceKinds> read_times(dom::element e) {
  std::array<double, kNumDeviceKinds> times{-1.0, -1.0};
  for (dom::key_value_pair field : as_object(e)) {
    std::optional<DeviceKind> kind = parse_device_kind(field.key);
    if (!kind || times[static_cast<int>(*kind)] >= 0) throw Decline{};  // also two spellings of one kind
    times[static_cast<int>(*kind)] = as_number(field.value);
  }
  return times;
}

// What is resolved once every op is read: input tensor names (op i's are
// inputs[first_input[i] .. first_input[i + 1]), one array for all ops) and forward ops.
struct Pending {
  std::vector<std::string_view> inputs;
  std::vector<size_t> first_input{0};
  std::vector<std::string_view> forward_op;
};

// Tensor names point into the parser's document, op names into the builder's ops: both outlive the read.
using NameMap = NameIndex;

enum OpField {
  kName, kType, kInputs, kOutputs, kFlops, kParameterBytes, kOptimizerStateBytes, kMemoryTrafficBytes,
  kMeasuredTime, kMeasuredBackwardTime, kKernels, kColocationGroup, kPinnedDevice, kPhase, kLayer, kForwardOp,
  kNumOpFields
};
constexpr std::array<std::string_view, kNumOpFields> kOpFields = {
    "name", "type", "inputs", "outputs", "flops", "parameter_bytes", "optimizer_state_bytes", "memory_traffic_bytes",
    "measured_time_s", "measured_backward_time_s", "kernels", "colocation_group", "pinned_device", "phase", "layer",
    "forward_op"};

enum TensorField { kTensorName, kShape, kDtype, kBytes, kNumTensorFields };
constexpr std::array<std::string_view, kNumTensorFields> kTensorFields = {"name", "shape", "dtype", "bytes"};

void read_output(dom::element e, OpId id, GraphBuilder& b, NameMap& tensor_ids) {
  const Members<kNumTensorFields> t(as_object(e), kTensorFields);
  const std::string_view name = as_string(t.get(kTensorName));
  std::vector<int64_t> shape;
  if (t.has(kShape)) {
    for (dom::element d : as_array(t.get(kShape))) shape.push_back(as_int(d, 0));
  }
  std::optional<DType> dtype = t.has(kDtype) ? parse_dtype(as_string(t.get(kDtype))) : DType::kFloat32;
  if (!dtype) throw Decline{};
  int64_t bytes = -1;
  if (t.has(kBytes)) {
    bytes = as_int(t.get(kBytes), 0);
  } else if (dense_tensor_bytes(shape, *dtype) < 0) {
    throw Decline{};
  }
  if (!tensor_ids.insert(name, b.num_tensors()).second) throw Decline{};
  b.add_output(id, std::string(name), std::move(shape), *dtype, bytes);  // the id just given
}

void read_op(dom::element e, GraphBuilder& b, NameMap& tensor_ids, Pending& pending) {
  const Members<kNumOpFields> j(as_object(e), kOpFields);
  const OpId id = b.add_op(std::string(as_string(j.get(kName))), std::string(as_string(j.get(kType))));
  Op& op = b.mutable_op(id);
  if (j.has(kFlops)) op.flops = as_number(j.get(kFlops));
  if (j.has(kParameterBytes)) op.parameter_bytes = as_int(j.get(kParameterBytes), 0);
  if (j.has(kOptimizerStateBytes)) op.optimizer_state_bytes = as_int(j.get(kOptimizerStateBytes), 0);
  if (j.has(kMemoryTrafficBytes)) op.memory_traffic_bytes = as_int(j.get(kMemoryTrafficBytes), 0);
  if (j.has(kMeasuredTime)) op.measured_time_s = read_times(j.get(kMeasuredTime));
  if (j.has(kMeasuredBackwardTime)) op.measured_backward_time_s = read_times(j.get(kMeasuredBackwardTime));
  if (j.has(kKernels)) {
    op.kernel_mask = 0;
    for (dom::element k : as_array(j.get(kKernels))) op.kernel_mask |= static_cast<uint8_t>(1u << static_cast<int>(as_device_kind(k)));
    if (op.kernel_mask == 0) throw Decline{};
  }
  if (j.has(kColocationGroup)) op.colocation_group = std::string(as_string(j.get(kColocationGroup)));
  if (j.has(kPinnedDevice)) op.pinned_device = std::string(as_string(j.get(kPinnedDevice)));
  if (j.has(kPhase)) {
    std::optional<OpPhase> phase = parse_op_phase(as_string(j.get(kPhase)));
    if (!phase) throw Decline{};
    op.phase = *phase;
  }
  if (j.has(kLayer)) {
    const int64_t layer = as_int(j.get(kLayer), -1);
    if (layer > INT32_MAX) throw Decline{};
    op.layer = static_cast<int32_t>(layer);
  }
  pending.forward_op.push_back(j.has(kForwardOp) ? as_string(j.get(kForwardOp)) : std::string_view());
  if (j.has(kInputs)) {
    for (dom::element in : as_array(j.get(kInputs))) pending.inputs.push_back(as_string(in));
  }
  pending.first_input.push_back(pending.inputs.size());
  if (j.has(kOutputs)) {
    for (dom::element out : as_array(j.get(kOutputs))) read_output(out, id, b, tensor_ids);
  }
}

enum DeviceField { kModel, kPeakFlops, kBandwidth, kNumDeviceFields };
constexpr std::array<std::string_view, kNumDeviceFields> kDeviceFields = {"model", "peak_flops",
                                                                          "memory_bandwidth_bytes_per_s"};

void read_measured_on(dom::element e, GraphBuilder& b) {
  const Members<kNumDeviceKinds> kinds(as_object(e), {"cpu", "gpu"});
  for (DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kGpu}) {
    // {"cpu", "gpu"} above is in DeviceKind order.
    const size_t k = static_cast<size_t>(kind);
    if (!kinds.has(k)) continue;
    const Members<kNumDeviceFields> d(as_object(kinds.get(k)), kDeviceFields);
    MeasuredOn on;
    if (d.has(kModel)) on.model = std::string(as_string(d.get(kModel)));
    on.peak_flops = as_number(d.get(kPeakFlops), /*positive=*/true);
    on.memory_bandwidth_bytes_per_s = as_number(d.get(kBandwidth), /*positive=*/true);
    b.set_measured_on(kind, std::move(on));
  }
}

enum DocField { kFormat, kVersion, kGraphName, kOps, kExport, kMeasuredOn, kNumDocFields };
constexpr std::array<std::string_view, kNumDocFields> kDocFields = {"format", "version", "name",
                                                                    "ops",    "export",  "measured_on"};

Graph read_document(dom::element root) {
  const Members<kNumDocFields> doc(as_object(root), kDocFields);
  if (as_string(doc.get(kFormat)) != "devplace-graph") throw Decline{};
  if (doc.has(kVersion) && as_int(doc.get(kVersion), INT64_MIN) != 1) throw Decline{};
  if (doc.has(kExport)) check_plain(doc.get(kExport), 2);
  const dom::array ops = as_array(doc.get(kOps));
  GraphBuilder b(doc.has(kGraphName) ? std::string(as_string(doc.get(kGraphName))) : std::string("graph"));
  b.reserve(static_cast<int>(std::min<size_t>(ops.size(), INT32_MAX)), static_cast<int>(std::min<size_t>(ops.size(), INT32_MAX)));
  if (doc.has(kMeasuredOn)) read_measured_on(doc.get(kMeasuredOn), b);

  NameMap tensor_ids(ops.size());
  Pending pending;
  pending.forward_op.reserve(ops.size());  // simdjson's size() saturates at 2^24 - 1: a hint only
  pending.first_input.reserve(ops.size() + 1);
  for (dom::element op : ops) read_op(op, b, tensor_ids, pending);

  NameMap op_ids(static_cast<size_t>(b.num_ops()));
  for (OpId id = 0; id < b.num_ops(); ++id) {
    if (!op_ids.insert(b.op(id).name, id).second) throw Decline{};
  }
  for (OpId id = 0; id < b.num_ops(); ++id) {
    for (size_t k = pending.first_input[id]; k < pending.first_input[id + 1]; ++k) {
      const int32_t tensor = tensor_ids.find(pending.inputs[k]);
      if (tensor < 0) throw Decline{};
      b.add_input(id, tensor);
    }
    if (!pending.forward_op[id].empty()) {
      const int32_t forward = op_ids.find(pending.forward_op[id]);
      if (forward < 0) throw Decline{};
      b.mutable_op(id).forward_op = forward;
    }
  }
  Result<Graph> g = std::move(b).build();
  if (!g.ok()) throw Decline{};
  return std::move(g).value();
}

}  // namespace

std::optional<Graph> read_native_json_fast(std::string_view text, size_t readable_past_end) {
  dom::parser parser;
  dom::element root;
  const bool padded = readable_past_end >= simdjson::SIMDJSON_PADDING;
  if (parser.parse(text.data(), text.size(), /*realloc_if_needed=*/!padded).get(root) != simdjson::SUCCESS)
    return std::nullopt;
  try {
    return read_document(root);
  } catch (const Decline&) {
    return std::nullopt;
  }
}

}  // namespace devplace
