// File: native_json.cc
// Native JSON graph reader and writer.
#include "io/native_json.h"

#include <unordered_map>

#include "common/file_io.h"
#include "common/mapped_text.h"
#include "graph/builder.h"
#include "io/native_json_fast.h"

namespace devplace {

using json::Json;

namespace {

constexpr const char* kFormat = "devplace-graph";
constexpr int kVersion = 1;

std::string op_where(size_t i, const std::string& name) {
  std::string w = json::index("ops", i);
  if (!name.empty()) w += " ('" + name + "')";
  return w;
}

Result<std::array<double, kNumDeviceKinds>> read_times(const Json& op, const char* key, const std::string& where) {
  std::array<double, kNumDeviceKinds> times{-1.0, -1.0};
  if (!op.contains(key)) return times;
  const Json& obj = op.at(key);
  const std::string at = json::join(where, key);
  DEVPLACE_RETURN_IF_ERROR(json::require_object(obj, at));
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::optional<DeviceKind> kind = parse_device_kind(it.key());
    if (!kind) return invalid_input(json::join(at, it.key()) + ": unknown device kind (known: cpu, gpu)");
    DEVPLACE_ASSIGN_OR_RETURN(times[static_cast<int>(*kind)], json::get_nonnegative(obj, it.key(), at));
  }
  return times;
}

Result<std::vector<int64_t>> read_shape(const Json& t, const std::string& where) {
  std::vector<int64_t> shape;
  if (!t.contains("shape")) return shape;
  const Json& arr = t.at("shape");
  const std::string at = json::join(where, "shape");
  DEVPLACE_RETURN_IF_ERROR(json::require_array(arr, at));
  for (size_t i = 0; i < arr.size(); ++i) {
    const Json& d = arr[i];
    if (!d.is_number_integer() || d.get<int64_t>() < 0)
      return invalid_input(json::index(at, i) + ": expected a non-negative integer, got " + json::brief(d));
    shape.push_back(d.get<int64_t>());
  }
  return shape;
}

struct PendingOp {
  std::vector<std::string> inputs;
  std::string forward_op;
};

Status read_op(const Json& j, size_t i, GraphBuilder& b, std::unordered_map<std::string, TensorId>& tensor_ids,
               PendingOp& pending) {
  std::string where = json::index("ops", i);
  DEVPLACE_RETURN_IF_ERROR(json::require_object(j, where));
  DEVPLACE_ASSIGN_OR_RETURN(std::string name, json::get_string(j, "name", where));
  where = op_where(i, name);
  DEVPLACE_RETURN_IF_ERROR(json::check_known_fields(
      j,
      {"name", "type", "inputs", "outputs", "flops", "parameter_bytes", "optimizer_state_bytes", "memory_traffic_bytes",
       "measured_time_s", "measured_backward_time_s", "kernels", "colocation_group", "pinned_device", "phase", "layer",
       "forward_op"},
      where));
  DEVPLACE_ASSIGN_OR_RETURN(std::string type, json::get_string(j, "type", where));
  const OpId id = b.add_op(name, type);
  Op& op = b.mutable_op(id);
  DEVPLACE_ASSIGN_OR_RETURN(op.flops, json::get_nonnegative_or(j, "flops", where, 0.0));
  DEVPLACE_ASSIGN_OR_RETURN(op.parameter_bytes, json::get_nonnegative_int_or(j, "parameter_bytes", where, 0));
  DEVPLACE_ASSIGN_OR_RETURN(op.optimizer_state_bytes, json::get_nonnegative_int_or(j, "optimizer_state_bytes", where, 0));
  if (j.contains("memory_traffic_bytes")) {
    DEVPLACE_ASSIGN_OR_RETURN(op.memory_traffic_bytes, json::get_nonnegative_int(j, "memory_traffic_bytes", where));
  }
  DEVPLACE_ASSIGN_OR_RETURN(op.measured_time_s, read_times(j, "measured_time_s", where));
  DEVPLACE_ASSIGN_OR_RETURN(op.measured_backward_time_s, read_times(j, "measured_backward_time_s", where));
  if (j.contains("kernels")) {
    const Json& ks = j.at("kernels");
    const std::string at = json::join(where, "kernels");
    DEVPLACE_RETURN_IF_ERROR(json::require_array(ks, at));
    op.kernel_mask = 0;
    for (size_t k = 0; k < ks.size(); ++k) {
      std::optional<DeviceKind> kind = ks[k].is_string() ? parse_device_kind(ks[k].get<std::string>()) : std::nullopt;
      if (!kind) return invalid_input(json::index(at, k) + ": expected \"cpu\" or \"gpu\", got " + json::brief(ks[k]));
      op.kernel_mask |= static_cast<uint8_t>(1u << static_cast<int>(*kind));
    }
    if (op.kernel_mask == 0) return invalid_input(at + ": expected at least one device kind");
  }
  DEVPLACE_ASSIGN_OR_RETURN(op.colocation_group, json::get_string_or(j, "colocation_group", where, ""));
  DEVPLACE_ASSIGN_OR_RETURN(op.pinned_device, json::get_string_or(j, "pinned_device", where, ""));
  DEVPLACE_ASSIGN_OR_RETURN(std::string phase, json::get_string_or(j, "phase", where, "forward"));
  std::optional<OpPhase> parsed_phase = parse_op_phase(phase);
  if (!parsed_phase)
    return invalid_input(json::join(where, "phase") + ": expected \"forward\", \"backward\" or \"update\", got \"" + phase + "\"");
  op.phase = *parsed_phase;
  DEVPLACE_ASSIGN_OR_RETURN(int64_t layer, json::get_int_or(j, "layer", where, -1));
  if (layer < -1 || layer > INT32_MAX) return invalid_input(json::join(where, "layer") + ": expected -1 or a non-negative integer");
  op.layer = static_cast<int32_t>(layer);
  DEVPLACE_ASSIGN_OR_RETURN(pending.forward_op, json::get_string_or(j, "forward_op", where, ""));

  if (j.contains("inputs")) {
    const Json& ins = j.at("inputs");
    const std::string at = json::join(where, "inputs");
    DEVPLACE_RETURN_IF_ERROR(json::require_array(ins, at));
    for (size_t k = 0; k < ins.size(); ++k) {
      if (!ins[k].is_string()) return invalid_input(json::index(at, k) + ": expected a tensor name, got " + json::brief(ins[k]));
      pending.inputs.push_back(ins[k].get<std::string>());
    }
  }
  if (j.contains("outputs")) {
    const Json& outs = j.at("outputs");
    const std::string at = json::join(where, "outputs");
    DEVPLACE_RETURN_IF_ERROR(json::require_array(outs, at));
    for (size_t k = 0; k < outs.size(); ++k) {
      const Json& t = outs[k];
      const std::string tw = json::index(at, k);
      DEVPLACE_RETURN_IF_ERROR(json::require_object(t, tw));
      DEVPLACE_RETURN_IF_ERROR(json::check_known_fields(t, {"name", "shape", "dtype", "bytes"}, tw));
      DEVPLACE_ASSIGN_OR_RETURN(std::string tname, json::get_string(t, "name", tw));
      DEVPLACE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, read_shape(t, tw));
      DEVPLACE_ASSIGN_OR_RETURN(std::string dtype_text, json::get_string_or(t, "dtype", tw, "float32"));
      std::optional<DType> dtype = parse_dtype(dtype_text);
      if (!dtype) return invalid_input(json::join(tw, "dtype") + ": unknown dtype \"" + dtype_text + "\"");
      int64_t bytes = -1;
      if (t.contains("bytes")) {
        DEVPLACE_ASSIGN_OR_RETURN(bytes, json::get_nonnegative_int(t, "bytes", tw));
      } else if (dense_tensor_bytes(shape, *dtype) < 0) {
        return invalid_input(json::join(tw, "shape") + ": too large");
      }
      if (tensor_ids.count(tname)) return invalid_input(json::join(tw, "name") + ": tensor '" + tname + "' is already produced by another op");
      tensor_ids[tname] = b.add_output(id, tname, std::move(shape), *dtype, bytes);
    }
  }
  return Status::ok_status();
}

// "measured_on": {"gpu": {"model": "...", "peak_flops": F, "memory_bandwidth_bytes_per_s": B}}
Status read_measured_on(const Json& j, GraphBuilder& b) {
  DEVPLACE_RETURN_IF_ERROR(json::require_object(j, "measured_on"));
  DEVPLACE_RETURN_IF_ERROR(json::check_known_fields(j, {"cpu", "gpu"}, "measured_on"));
  for (DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kGpu}) {
    const std::string key(device_kind_name(kind));
    if (!j.contains(key)) continue;
    const std::string where = json::join("measured_on", key);
    const Json& d = j.at(key);
    DEVPLACE_RETURN_IF_ERROR(json::require_object(d, where));
    DEVPLACE_RETURN_IF_ERROR(json::check_known_fields(d, {"model", "peak_flops", "memory_bandwidth_bytes_per_s"}, where));
    MeasuredOn on;
    DEVPLACE_ASSIGN_OR_RETURN(on.model, json::get_string_or(d, "model", where, ""));
    DEVPLACE_ASSIGN_OR_RETURN(on.peak_flops, json::get_positive(d, "peak_flops", where));
    DEVPLACE_ASSIGN_OR_RETURN(on.memory_bandwidth_bytes_per_s, json::get_positive(d, "memory_bandwidth_bytes_per_s", where));
    b.set_measured_on(kind, std::move(on));
  }
  return Status::ok_status();
}

}  // namespace

bool is_native_graph_json(const Json& doc) {
  return doc.is_object() && doc.contains("format") && doc.at("format") == kFormat;
}

Result<Graph> graph_from_json(const Json& doc, const std::string& source) {
  auto fail = [&](const Error& e) { return e.with_prefix(source); };
  if (Status s = json::require_object(doc, ""); !s.ok()) return fail(s.error());
  if (Status s = json::check_known_fields(doc, {"format", "version", "name", "ops", "export", "measured_on"}, ""); !s.ok())
    return fail(s.error());
  if (!is_native_graph_json(doc))
    return fail(invalid_input("format: expected \"" + std::string(kFormat) + "\" (a devplace graph)"));
  Result<int64_t> version = json::get_int_or(doc, "version", "", kVersion);
  if (!version.ok()) return fail(version.error());
  if (version.value() != kVersion)
    return fail(invalid_input("version: this devplace reads version 1, got " + std::to_string(version.value())));
  Result<std::string> name = json::get_string_or(doc, "name", "", "graph");
  if (!name.ok()) return fail(name.error());
  if (!doc.contains("ops")) return fail(invalid_input("ops: missing required field"));
  const Json& ops = doc.at("ops");
  if (Status s = json::require_array(ops, "ops"); !s.ok()) return fail(s.error());

  GraphBuilder b(name.value());
  if (doc.contains("measured_on")) {
    if (Status s = read_measured_on(doc.at("measured_on"), b); !s.ok()) return fail(s.error());
  }
  std::unordered_map<std::string, TensorId> tensor_ids;
  std::vector<PendingOp> pending(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (Status s = read_op(ops[i], i, b, tensor_ids, pending[i]); !s.ok()) return fail(s.error());
  }
  std::unordered_map<std::string, OpId> op_ids;
  for (OpId id = 0; id < b.num_ops(); ++id) {
    if (!op_ids.emplace(b.op(id).name, id).second)
      return fail(invalid_input(op_where(id, b.op(id).name) + ".name: duplicate op name"));
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const OpId id = static_cast<OpId>(i);
    const std::string where = op_where(i, b.op(id).name);
    for (size_t k = 0; k < pending[i].inputs.size(); ++k) {
      auto it = tensor_ids.find(pending[i].inputs[k]);
      if (it == tensor_ids.end())
        return fail(invalid_input(json::index(where + ".inputs", k) + ": dangling edge: names no tensor '" +
                                  pending[i].inputs[k] + "'"));
      b.add_input(id, it->second);
    }
    if (!pending[i].forward_op.empty()) {
      auto it = op_ids.find(pending[i].forward_op);
      if (it == op_ids.end())
        return fail(invalid_input(where + ".forward_op: names no op '" + pending[i].forward_op + "'"));
      b.mutable_op(id).forward_op = it->second;
    }
  }
  Result<Graph> g = std::move(b).build();
  if (!g.ok()) return fail(g.error());
  return g;
}

Result<Graph> read_native_json(const std::string& path) {
  DEVPLACE_ASSIGN_OR_RETURN(MappedText file, map_text_file(path));
  if (std::optional<Graph> g = read_native_json_fast(file.text(), MappedText::kPadding)) return std::move(*g);
  // Not an ordinary file: the checked reader says what is wrong, or reads what is unusual.
  DEVPLACE_ASSIGN_OR_RETURN(Json doc, json::parse_text(file.text(), path));
  return graph_from_json(doc, path);
}

Json graph_to_json(const Graph& graph) {
  Json ops = Json::array();
  for (const Op& op : graph.ops()) {
    Json j = Json::object();
    j["name"] = op.name;
    j["type"] = op.type;
    if (!op.inputs.empty()) {
      Json ins = Json::array();
      for (TensorId t : op.inputs) ins.push_back(graph.tensor(t).name);
      j["inputs"] = ins;
    }
    if (!op.outputs.empty()) {
      Json outs = Json::array();
      for (TensorId id : op.outputs) {
        const Tensor& t = graph.tensor(id);
        Json tj = {{"name", t.name}, {"shape", t.shape}, {"dtype", std::string(dtype_name(t.dtype))}};
        if (t.bytes != dense_tensor_bytes(t.shape, t.dtype)) tj["bytes"] = t.bytes;
        outs.push_back(tj);
      }
      j["outputs"] = outs;
    }
    if (op.flops != 0) j["flops"] = op.flops;
    if (op.parameter_bytes != 0) j["parameter_bytes"] = op.parameter_bytes;
    if (op.optimizer_state_bytes != 0) j["optimizer_state_bytes"] = op.optimizer_state_bytes;
    if (op.memory_traffic_bytes >= 0) j["memory_traffic_bytes"] = op.memory_traffic_bytes;
    for (auto [key, times] : {std::pair{"measured_time_s", &op.measured_time_s},
                              std::pair{"measured_backward_time_s", &op.measured_backward_time_s}}) {
      Json m = Json::object();
      for (int k = 0; k < kNumDeviceKinds; ++k) {
        if ((*times)[k] >= 0) m[std::string(device_kind_name(static_cast<DeviceKind>(k)))] = (*times)[k];
      }
      if (!m.empty()) j[key] = m;
    }
    if (op.kernel_mask != kAllKernels) {
      Json ks = Json::array();
      for (int k = 0; k < kNumDeviceKinds; ++k) {
        if (op.has_kernel(static_cast<DeviceKind>(k))) ks.push_back(std::string(device_kind_name(static_cast<DeviceKind>(k))));
      }
      j["kernels"] = ks;
    }
    if (!op.colocation_group.empty()) j["colocation_group"] = op.colocation_group;
    if (!op.pinned_device.empty()) j["pinned_device"] = op.pinned_device;
    if (op.phase != OpPhase::kForward) j["phase"] = std::string(op_phase_name(op.phase));
    if (op.layer >= 0) j["layer"] = op.layer;
    if (op.forward_op != kNoId) j["forward_op"] = graph.op(op.forward_op).name;
    ops.push_back(std::move(j));
  }
  Json doc = {{"format", kFormat}, {"version", kVersion}, {"name", graph.name()}, {"ops", std::move(ops)}};
  Json measured_on = Json::object();
  for (DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kGpu}) {
    const MeasuredOn& on = graph.measured_on(kind);
    if (!on.known()) continue;
    measured_on[std::string(device_kind_name(kind))] = {
        {"model", on.model}, {"peak_flops", on.peak_flops}, {"memory_bandwidth_bytes_per_s", on.memory_bandwidth_bytes_per_s}};
  }
  if (!measured_on.empty()) doc["measured_on"] = std::move(measured_on);
  return doc;
}

Status write_native_json(const Graph& graph, const std::string& path) {
  return write_text_file(path, graph_to_json(graph).dump(1) + "\n");
}

}  // namespace devplace
