// File: native_json_fast.cc
// The simdjson fast path of the native JSON graph reader. Every check of
// the checked reader (native_json.cc) is here as a reason to decline, never
// as an error message: `std::nullopt` hands the text back to it.
//
// It uses simdjson's On Demand API: one pass over the structural index,
// values read in file order as the graph is built, no document tree (a
// 1M-op file parsed into simdjson's DOM took three times as long). On
// Demand checks what it reads, and this reads every value of the file
// (the "export" block too) and then checks that nothing follows, so a
// malformed file cannot pass. Keys are compared as written: a key with an
// escape in it is not one this knows, so the checked reader decides.
#include "io/native_json_fast.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/json_reader.h"
#include "common/name_index.h"
#include "graph/builder.h"

namespace devplace {

namespace {

namespace od = simdjson::ondemand;

// Declines: the checked reader decides.
struct Decline {};

template <typename T>
T take(simdjson::simdjson_result<T>&& r) {
  T v;
  if (std::move(r).get(v) != simdjson::SUCCESS) throw Decline{};
  return v;
}

// The index of the field's key in `keys` (as written: no escapes), marking
// it seen in `seen`; declines on an unknown key and on a key seen before.
template <size_t N>
size_t key_index(od::field& field, const std::array<std::string_view, N>& keys, uint32_t& seen) {
  const char* raw = field.key().raw();  // just after the opening quote
  for (size_t k = 0; k < N; ++k) {
    const std::string_view key = keys[k];
    if (std::memcmp(raw, key.data(), key.size()) == 0 && raw[key.size()] == '"') {
      if (seen & (1u << k)) throw Decline{};
      seen |= 1u << k;
      return k;
    }
  }
  throw Decline{};
}

// A string with no control characters (the checked reader refuses them
// raw; one written as an escape, rare in a graph, is left to it as well).
std::string_view as_string(od::value v) {
  const std::string_view s = take(v.get_string());
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20) throw Decline{};
  }
  return s;
}

// A finite number >= 0 (> 0 if `positive`), as json::get_nonnegative reads it.
double as_number(od::value v, bool positive = false) {
  double d = 0;
  switch (take(v.get_number_type())) {
    case od::number_type::signed_integer: d = static_cast<double>(take(v.get_int64())); break;
    case od::number_type::unsigned_integer: d = static_cast<double>(take(v.get_uint64())); break;
    case od::number_type::floating_point_number: d = take(v.get_double()); break;
  }
  if (!std::isfinite(d) || !(d >= 0) || (positive && d == 0)) throw Decline{};
  return d;
}

// An integer written as one (the checked reader also takes 4.0 and 1e3: it decides those).
int64_t as_int(od::value v, int64_t min_value) {
  if (take(v.get_number_type()) != od::number_type::signed_integer) throw Decline{};
  const int64_t i = take(v.get_int64());
  if (i < min_value) throw Decline{};
  return i;
}

DeviceKind as_device_kind(std::string_view name) {
  std::optional<DeviceKind> kind = parse_device_kind(name);
  if (!kind) throw Decline{};
  return *kind;
}

// A value the format keeps but does not read ("export"): every value is
// read, so that a malformed one declines, and nesting and repeated keys
// are checked as the checked reader checks the whole text.
void check_plain(od::value v, int depth) {
  if (depth >= json::kMaxDepth) throw Decline{};
  switch (take(v.type())) {
    case od::json_type::array:
      for (auto element : take(v.get_array())) check_plain(take(std::move(element)), depth + 1);
      break;
    case od::json_type::object: {
      std::vector<std::string_view> keys;
      for (auto result : take(v.get_object())) {
        od::field field = take(std::move(result));
        const std::string_view key = take(field.unescaped_key());
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) throw Decline{};
        keys.push_back(key);
        check_plain(field.value(), depth + 1);
      }
      break;
    }
    case od::json_type::number: (void)take(v.get_double()); break;
    case od::json_type::string: (void)as_string(v); break;
    case od::json_type::boolean: (void)take(v.get_bool()); break;
    case od::json_type::null:
      if (!take(v.is_null())) throw Decline{};
      break;
  }
}

std::array<double, kNumDeviceKinds> read_times(od::value v) {
  std::array<double, kNumDeviceKinds> times{-1.0, -1.0};
  for (auto result : take(v.get_object())) {
    od::field field = take(std::move(result));
    const DeviceKind kind = as_device_kind(take(field.unescaped_key()));
    if (times[static_cast<int>(kind)] >= 0) throw Decline{};  // also two spellings of one kind
    times[static_cast<int>(kind)] = as_number(field.value());
  }
  return times;
}

// Names are views into the parser's string buffer, alive for the whole read.
struct Output {
  std::string_view name;
  std::vector<int64_t> shape;
  DType dtype = DType::kFloat32;
  int64_t bytes = -1;
};

// What is resolved once every op is read: input tensor names (op i's are
// inputs[first_input[i] .. first_input[i + 1]), one array for all ops) and forward ops.
struct Pending {
  std::vector<std::string_view> inputs;
  std::vector<size_t> first_input{0};
  std::vector<std::string_view> forward_op;
};

constexpr std::array<std::string_view, 4> kTensorFields = {"name", "shape", "dtype", "bytes"};

Output read_output(od::value v) {
  Output out;
  uint32_t seen = 0;
  for (auto result : take(v.get_object())) {
    od::field field = take(std::move(result));
    switch (key_index(field, kTensorFields, seen)) {
      case 0: out.name = as_string(field.value()); break;
      case 1:
        for (auto d : take(field.value().get_array())) out.shape.push_back(as_int(take(std::move(d)), 0));
        break;
      case 2: {
        std::optional<DType> dtype = parse_dtype(as_string(field.value()));
        if (!dtype) throw Decline{};
        out.dtype = *dtype;
        break;
      }
      default: out.bytes = as_int(field.value(), 0); break;
    }
  }
  if (!(seen & 1u)) throw Decline{};  // a name is required
  if (out.bytes < 0 && dense_tensor_bytes(out.shape, out.dtype) < 0) throw Decline{};
  return out;
}

enum OpField {
  kName, kType, kInputs, kOutputs, kFlops, kParameterBytes, kOptimizerStateBytes, kMemoryTrafficBytes,
  kMeasuredTime, kMeasuredBackwardTime, kKernels, kColocationGroup, kPinnedDevice, kPhase, kLayer, kForwardOp,
  kNumOpFields
};
constexpr std::array<std::string_view, kNumOpFields> kOpFields = {
    "name", "type", "inputs", "outputs", "flops", "parameter_bytes", "optimizer_state_bytes", "memory_traffic_bytes",
    "measured_time_s", "measured_backward_time_s", "kernels", "colocation_group", "pinned_device", "phase", "layer",
    "forward_op"};

// Reads one op object (fields in any order) and adds the op and its outputs.
void read_op(od::value v, GraphBuilder& b, NameIndex& tensor_ids, Pending& pending, std::vector<Output>& outputs) {
  Op op;
  std::string_view name, type, forward_op;
  outputs.clear();
  uint32_t seen = 0;
  for (auto result : take(v.get_object())) {
    od::field field = take(std::move(result));
    od::value value = field.value();
    switch (key_index(field, kOpFields, seen)) {
      case kName: name = as_string(value); break;
      case kType: type = as_string(value); break;
      case kInputs:
        for (auto in : take(value.get_array())) pending.inputs.push_back(as_string(take(std::move(in))));
        break;
      case kOutputs:
        for (auto out : take(value.get_array())) outputs.push_back(read_output(take(std::move(out))));
        break;
      case kFlops: op.flops = as_number(value); break;
      case kParameterBytes: op.parameter_bytes = as_int(value, 0); break;
      case kOptimizerStateBytes: op.optimizer_state_bytes = as_int(value, 0); break;
      case kMemoryTrafficBytes: op.memory_traffic_bytes = as_int(value, 0); break;
      case kMeasuredTime: op.measured_time_s = read_times(value); break;
      case kMeasuredBackwardTime: op.measured_backward_time_s = read_times(value); break;
      case kKernels:
        op.kernel_mask = 0;
        for (auto k : take(value.get_array()))
          op.kernel_mask |= static_cast<uint8_t>(1u << static_cast<int>(as_device_kind(as_string(take(std::move(k))))));
        if (op.kernel_mask == 0) throw Decline{};
        break;
      case kColocationGroup: op.colocation_group = std::string(as_string(value)); break;
      case kPinnedDevice: op.pinned_device = std::string(as_string(value)); break;
      case kPhase: {
        std::optional<OpPhase> phase = parse_op_phase(as_string(value));
        if (!phase) throw Decline{};
        op.phase = *phase;
        break;
      }
      case kLayer: {
        const int64_t layer = as_int(value, -1);
        if (layer > INT32_MAX) throw Decline{};
        op.layer = static_cast<int32_t>(layer);
        break;
      }
      default: forward_op = as_string(value); break;
    }
  }
  if (!(seen & (1u << kName)) || !(seen & (1u << kType))) throw Decline{};
  op.name = std::string(name);
  op.type = std::string(type);
  const OpId id = b.add_op(std::move(op));
  for (Output& out : outputs) {
    if (!tensor_ids.insert(out.name, b.num_tensors()).second) throw Decline{};
    b.add_output(id, std::string(out.name), std::move(out.shape), out.dtype, out.bytes);  // the id just given
  }
  pending.first_input.push_back(pending.inputs.size());
  pending.forward_op.push_back(forward_op);
}

constexpr std::array<std::string_view, 3> kDeviceFields = {"model", "peak_flops", "memory_bandwidth_bytes_per_s"};

void read_measured_on(od::value v, GraphBuilder& b) {
  uint32_t seen_kinds = 0;
  for (auto result : take(v.get_object())) {
    od::field field = take(std::move(result));
    // {"cpu", "gpu"} in DeviceKind order.
    const DeviceKind kind = static_cast<DeviceKind>(key_index(field, std::array<std::string_view, 2>{"cpu", "gpu"}, seen_kinds));
    MeasuredOn on;
    uint32_t seen = 0;
    for (auto r : take(field.value().get_object())) {
      od::field f = take(std::move(r));
      switch (key_index(f, kDeviceFields, seen)) {
        case 0: on.model = std::string(as_string(f.value())); break;
        case 1: on.peak_flops = as_number(f.value(), /*positive=*/true); break;
        default: on.memory_bandwidth_bytes_per_s = as_number(f.value(), /*positive=*/true); break;
      }
    }
    if ((seen & 6u) != 6u) throw Decline{};  // both numbers are required
    b.set_measured_on(kind, std::move(on));
  }
}

enum DocField { kFormat, kVersion, kGraphName, kOps, kExport, kMeasuredOn, kNumDocFields };
constexpr std::array<std::string_view, kNumDocFields> kDocFields = {"format", "version", "name",
                                                                    "ops",    "export",  "measured_on"};

Graph read_document(od::document& doc) {
  GraphBuilder b("graph");
  std::string_view graph_name = "graph";
  NameIndex tensor_ids;
  Pending pending;
  std::vector<Output> outputs;
  uint32_t seen = 0;
  bool native = false;
  for (auto result : take(doc.get_object())) {
    od::field field = take(std::move(result));
    od::value value = field.value();
    switch (key_index(field, kDocFields, seen)) {
      case kFormat: native = as_string(value) == "devplace-graph"; break;
      case kVersion:
        if (as_int(value, INT64_MIN) != 1) throw Decline{};
        break;
      case kGraphName: graph_name = as_string(value); break;
      case kOps:
        for (auto op : take(value.get_array())) read_op(take(std::move(op)), b, tensor_ids, pending, outputs);
        break;
      case kExport: check_plain(value, 2); break;
      default: read_measured_on(value, b); break;
    }
  }
  // Nothing may follow the object (this simdjson has no at_end(): a location past it means a token is left).
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS || !native || !(seen & (1u << kOps))) throw Decline{};

  NameIndex op_ids(static_cast<size_t>(b.num_ops()));
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
  b.set_name(std::string(graph_name));
  Result<Graph> g = std::move(b).build();
  if (!g.ok()) throw Decline{};
  return std::move(g).value();
}

}  // namespace

std::optional<Graph> read_native_json_fast(std::string_view text, size_t readable_past_end) {
  // On Demand needs readable padding after the text: a copy when the caller has none.
  std::string copy;
  if (readable_past_end < simdjson::SIMDJSON_PADDING) {
    copy.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    copy.assign(text);
    text = copy;
  }
  od::parser parser;
  try {
    od::document doc = take(parser.iterate(text.data(), text.size(), text.size() + simdjson::SIMDJSON_PADDING));
    return read_document(doc);
  } catch (const Decline&) {
    return std::nullopt;
  }
}

}  // namespace devplace
