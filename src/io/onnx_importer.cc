// File: onnx_importer.cc
// ONNX models into Graphs (rules in onnx_importer.h). Every exception of
// protobuf or onnx is caught here and becomes an Error.
#include "io/onnx_importer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include "common/file_io.h"
#include "graph/builder.h"
#include "io/onnx_constant_folding.h"
#include "io/onnx_einsum.h"
#include "io/onnx_shape_inference.h"

namespace devplace {

namespace {

struct ValueInfo {
  std::vector<int64_t> dims;  // -1: unknown
  std::string symbolic;       // name of the first symbolic dim, if any
  int elem_type = 0;
  bool has_shape = false;
};

bool is_floating(int elem_type) {
  using T = onnx::TensorProto;
  return elem_type == T::FLOAT || elem_type == T::FLOAT16 || elem_type == T::BFLOAT16 || elem_type == T::DOUBLE;
}

// Element size and our closest dtype for an ONNX TensorProto element type.
std::pair<DType, int> element(int elem_type) {
  using T = onnx::TensorProto;
  switch (elem_type) {
    case T::FLOAT: return {DType::kFloat32, 4};
    case T::FLOAT16: return {DType::kFloat16, 2};
    case T::BFLOAT16: return {DType::kBFloat16, 2};
    case T::DOUBLE: return {DType::kFloat64, 8};
    case T::INT8: return {DType::kInt8, 1};
    case T::UINT8: return {DType::kUInt8, 1};
    case T::BOOL: return {DType::kBool, 1};
    case T::INT16:
    case T::UINT16: return {DType::kInt32, 2};
    case T::INT32:
    case T::UINT32: return {DType::kInt32, 4};
    case T::INT64:
    case T::UINT64: return {DType::kInt64, 8};
    default: return {DType::kFloat32, 4};
  }
}

ValueInfo info_of(const onnx::ValueInfoProto& v) {
  ValueInfo info;
  if (!v.has_type() || !v.type().has_tensor_type()) return info;
  const auto& t = v.type().tensor_type();
  info.elem_type = t.elem_type();
  if (!t.has_shape()) return info;
  info.has_shape = true;
  for (const auto& d : t.shape().dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0) {
      info.dims.push_back(d.dim_value());
    } else {
      info.dims.push_back(-1);
      if (info.symbolic.empty()) info.symbolic = d.has_dim_param() ? d.dim_param() : "?";
    }
  }
  return info;
}

double elements(const std::vector<int64_t>& dims) {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(std::max<int64_t>(d, 0));
  return n;
}

bool known_shape(const ValueInfo& v) {
  if (!v.has_shape) return false;
  for (int64_t d : v.dims) {
    if (d < 0) return false;
  }
  return true;
}

// "3x?x224": dimensions as --input-shape takes them, ? for a symbolic one.
std::string dims_text(const std::vector<int64_t>& dims) {
  std::string text;
  for (int64_t d : dims) text += (text.empty() ? "" : "x") + (d < 0 ? std::string("?") : std::to_string(d));
  return text;
}

bool known(const ValueInfo* v) {
  if (v == nullptr || !v->has_shape) return false;
  for (int64_t d : v->dims) {
    if (d < 0) return false;
  }
  return true;
}

// At most one dimension above 1: a vector, perhaps shaped to broadcast.
bool broadcast_vector(const std::vector<int64_t>& dims) {
  return std::count_if(dims.begin(), dims.end(), [](int64_t d) { return d > 1; }) <= 1;
}

const std::set<std::string>& layout_ops() {
  static const std::set<std::string> ops = {"Identity", "Transpose", "Reshape", "Slice", "Concat", "Squeeze",
                                            "Unsqueeze", "Cast", "Flatten", "Split", "Expand"};
  return ops;
}

// Ops whose cost is their bytes alone.
const std::set<std::string>& zero_flop_ops() {
  static const std::set<std::string> ops = {"Identity", "Transpose", "Reshape", "Slice", "Concat", "Squeeze", "Unsqueeze",
                                            "Cast", "Flatten", "Split", "Expand", "Gather", "Shape", "Constant",
                                            "ConstantOfShape", "Pad", "Tile", "Range", "Size", "GatherElements",
                                            "ScatterND", "NonZero", "Dropout"};
  return ops;
}

double unary_flops_per_element(const std::string& type) {
  static const std::map<std::string, double> ops = {
      {"Add", 1}, {"Sub", 1}, {"Mul", 1}, {"Div", 1}, {"Relu", 1}, {"LeakyRelu", 2}, {"PRelu", 2}, {"Neg", 1},
      {"Abs", 1}, {"Max", 1}, {"Min", 1}, {"Clip", 2}, {"Where", 1}, {"Equal", 1}, {"Less", 1}, {"Greater", 1},
      {"Not", 1}, {"And", 1}, {"Or", 1}, {"Sigmoid", 4}, {"Tanh", 4}, {"Exp", 4}, {"Log", 4}, {"Sqrt", 4},
      {"Pow", 4}, {"Erf", 4}, {"Reciprocal", 1}, {"HardSigmoid", 2}, {"HardSwish", 3}, {"Gelu", 8}, {"Softplus", 4},
      {"Elu", 4}, {"Selu", 4}, {"Floor", 1}, {"Ceil", 1}, {"Round", 1}, {"Sign", 1}, {"Sin", 4}, {"Cos", 4}};
  auto it = ops.find(type);
  return it == ops.end() ? -1 : it->second;
}

int64_t attribute_int(const onnx::NodeProto& n, const char* name, int64_t fallback) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name && a.has_i()) return a.i();
  }
  return fallback;
}

std::vector<int64_t> attribute_ints(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return {a.ints().begin(), a.ints().end()};
  }
  return {};
}

// FLOPs of a node, or -1 if no rule knows its type.
double node_flops(const onnx::NodeProto& n, const std::vector<const ValueInfo*>& in, const std::vector<const ValueInfo*>& out) {
  const std::string& t = n.op_type();
  auto in_known = [&](size_t i) { return i < in.size() && known(in[i]); };
  const bool out0 = !out.empty() && known(out[0]);
  const double out_elems = out0 ? elements(out[0]->dims) : 0;
  if (t == "Conv" || t == "ConvTranspose") {
    if (!in_known(1)) return 0;
    const std::vector<int64_t>& w = in[1]->dims;  // Conv: [Cout, Cin/g, k...]; ConvTranspose: [Cin, Cout/g, k...]
    double per = 1;
    for (size_t i = 1; i < w.size(); ++i) per *= static_cast<double>(w[i]);
    if (t == "Conv") return out0 ? 2.0 * out_elems * per : 0;
    return in_known(0) ? 2.0 * elements(in[0]->dims) * per : 0;
  }
  if (t == "Gemm") {
    if (!in_known(0) || !out0 || in[0]->dims.size() != 2) return 0;
    const int64_t k = attribute_int(n, "transA", 0) ? in[0]->dims[0] : in[0]->dims[1];
    return 2.0 * out_elems * static_cast<double>(k);
  }
  if (t == "MatMul") {
    if (!in_known(0) || !out0 || in[0]->dims.empty()) return 0;
    return 2.0 * out_elems * static_cast<double>(in[0]->dims.back());
  }
  if (t == "LSTM" || t == "GRU" || t == "RNN") {
    if (!in_known(0) || in[0]->dims.size() != 3) return 0;
    const double gates = t == "LSTM" ? 4 : t == "GRU" ? 3 : 1;
    const double hidden = static_cast<double>(attribute_int(n, "hidden_size", 0));
    const double dirs = attribute_int(n, "direction", 0) ? 2 : 1;
    std::string direction;
    for (const auto& a : n.attribute()) {
      if (a.name() == "direction") direction = a.s();
    }
    const double d = direction == "bidirectional" ? 2 : dirs;
    const double seq = static_cast<double>(in[0]->dims[0]), batch = static_cast<double>(in[0]->dims[1]);
    const double input = static_cast<double>(in[0]->dims[2]);
    return d * seq * (2.0 * batch * (input + hidden) * gates * hidden + 10.0 * batch * hidden);
  }
  if (t == "Einsum") {
    std::vector<std::vector<int64_t>> operands;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!in_known(i)) return 0;
      operands.push_back(in[i]->dims);
    }
    std::string equation;
    for (const auto& a : n.attribute()) {
      if (a.name() == "equation") equation = a.s();
    }
    const std::optional<EinsumResult> e = einsum(equation, operands);
    return e ? e->flops : 0;
  }
  if (t == "BatchNormalization" || t == "InstanceNormalization") return 4.0 * out_elems;
  if (t == "LayerNormalization") return 5.0 * out_elems;
  if (t == "Softmax" || t == "LogSoftmax") return 5.0 * out_elems;
  if (t == "MaxPool" || t == "AveragePool") {
    double k = 1;
    for (int64_t d : attribute_ints(n, "kernel_shape")) k *= static_cast<double>(d);
    return out_elems * k;
  }
  if (t == "GlobalAveragePool" || t == "GlobalMaxPool" || t.rfind("Reduce", 0) == 0) return in_known(0) ? elements(in[0]->dims) : 0;
  if (t == "Resize" || t == "Upsample") {
    // Per output element: a copy (nearest), or a weighted sum of the 2^s
    // (linear) or 4^s (cubic) neighbours over the s spatial dimensions.
    std::string mode = "nearest";
    for (const auto& a : n.attribute()) {
      if (a.name() == "mode") mode = a.s();
    }
    const double spatial = out0 ? std::max<double>(1, static_cast<double>(out[0]->dims.size()) - 2) : 1;
    const double taps = mode == "linear" || mode == "bilinear" ? std::pow(2.0, spatial) : mode == "cubic" ? std::pow(4.0, spatial) : 0.5;
    return 2.0 * taps * out_elems;
  }
  if (zero_flop_ops().count(t)) return 0;
  const double per = unary_flops_per_element(t);
  if (per >= 0) return per * out_elems;
  return -1;
}

// Weight operands: (op type, input slot) pairs that read parameters.
bool is_weight_slot(const std::string& type, int slot) {
  if (type == "Conv" || type == "ConvTranspose" || type == "Gemm") return slot == 1 || slot == 2;
  if (type == "MatMul" || type == "PRelu") return slot == 1;
  if (type == "BatchNormalization" || type == "LayerNormalization" || type == "InstanceNormalization") return slot == 1 || slot == 2;
  if (type == "LSTM" || type == "GRU" || type == "RNN") return slot >= 1 && slot <= 3;
  if (type == "Gather") return slot == 0;
  return false;
}

// Operands that steer an op rather than feed it (a target shape, axes,
// indices, scales, bounds): a constant read only there is no parameter.
bool is_control_slot(const std::string& type, int slot) {
  if (slot == 0) return type == "ConstantOfShape" || type == "Range";
  if (type == "Reshape" || type == "Expand" || type == "Tile" || type == "Unsqueeze" || type == "Squeeze" || type == "Split" ||
      type == "TopK" || type == "Upsample" || type == "Gather" || type == "GatherElements" || type == "Range" ||
      type.rfind("Reduce", 0) == 0)
    return true;
  return type == "Slice" || type == "Pad" || type == "Resize" || type == "Clip" || type == "OneHot";
}

std::string node_place(const std::string& name, int index) { return "node '" + name + "' (#" + std::to_string(index) + ")"; }

class OnnxReader {
 public:
  // `folded`: initializers that constant folding made (constants of the
  // model: neither parameters nor tensors).
  OnnxReader(const onnx::ModelProto& model, std::string source, FoldedConstants folded = {})
      : g_(model.graph()), source_(std::move(source)), folded_(std::move(folded.names)),
        file_index_(std::move(folded.node_index)) {}

  Result<Graph> read() {
    DEVPLACE_RETURN_IF_ERROR(collect_value_infos());
    index_consumers();
    classify_graph_inputs();
    DEVPLACE_RETURN_IF_ERROR(check_data_inputs());
    DEVPLACE_RETURN_IF_ERROR(add_ops());
    warn();
    Result<Graph> g = std::move(*builder_).build();
    if (!g.ok()) return g.error().with_prefix(source_);
    return g;
  }

 private:
  Status collect_value_infos() {
    for (const auto& v : g_.input()) infos_[v.name()] = info_of(v);
    for (const auto& v : g_.value_info()) infos_[v.name()] = info_of(v);
    for (const auto& v : g_.output()) {
      if (!infos_.count(v.name()) || !infos_[v.name()].has_shape) infos_[v.name()] = info_of(v);
    }
    for (const auto& init : g_.initializer()) {
      ValueInfo info;
      info.has_shape = true;
      info.elem_type = init.data_type();
      info.dims.assign(init.dims().begin(), init.dims().end());
      infos_[init.name()] = info;
      initializers_.insert(init.name());
    }
    // Sizes must fit comfortably in int64 bytes (found by fuzz_onnx: dims of 2^63).
    for (const auto& [name, info] : infos_) {
      if (!known(&info)) continue;
      const double bytes = elements(info.dims) * element(info.elem_type).second;
      if (bytes > 1e15) {
        char size[32];
        std::snprintf(size, sizeof size, "%.3g", bytes);
        return invalid_input(source_ + ": tensor '" + name + "' would hold " + size + " bytes: too large for a model");
      }
    }
    return Status::ok_status();
  }

  void index_consumers() {
    for (int i = 0; i < g_.node_size(); ++i) {
      const auto& n = g_.node(i);
      for (int s = 0; s < n.input_size(); ++s) {
        if (!n.input(s).empty()) consumers_[n.input(s)].push_back({i, s});
      }
    }
  }

  // True if `name` reaches a weight operand through layout ops (depth-bounded).
  bool reaches_weight_slot(const std::string& name, int depth) {
    if (depth > 8) return false;
    auto it = consumers_.find(name);
    if (it == consumers_.end()) return false;
    for (auto [node, slot] : it->second) {
      const auto& n = g_.node(node);
      if (is_weight_slot(n.op_type(), slot)) return true;
      const ValueInfo* v = info(name);
      if ((n.op_type() == "Add" || n.op_type() == "Mul") && v != nullptr && v->has_shape && v->dims.size() <= 1) return true;
      // A vector shaped to broadcast ([C, 1, 1]: ConvNeXt's layer scale)
      // against a larger operand of Add or Mul, or expanded to a batch (a
      // class token: x.expand(n, -1, -1)).
      if (v != nullptr && known(v) && broadcast_vector(v->dims)) {
        if (n.op_type() == "Expand" && slot == 0) return true;
        if ((n.op_type() == "Add" || n.op_type() == "Mul") && n.input_size() == 2) {
          const ValueInfo* other = info(n.input(1 - slot));
          if (known(other) && elements(other->dims) > elements(v->dims)) return true;
        }
      }
      if (layout_ops().count(n.op_type())) {
        for (const std::string& o : n.output()) {
          if (reaches_weight_slot(o, depth + 1)) return true;
        }
      }
    }
    return false;
  }

  // Whether every reader of `name` takes it as BatchNormalization's running
  // mean or variance (a buffer, not a parameter), and there is a reader.
  bool only_batch_norm_statistics(const std::string& name) const {
    auto it = consumers_.find(name);
    return it != consumers_.end() && std::all_of(it->second.begin(), it->second.end(), [&](auto c) {
             return g_.node(c.first).op_type() == "BatchNormalization" && c.second >= 3;
           });
  }

  void classify_graph_inputs() {
    for (const auto& v : g_.input()) {
      const std::string& name = v.name();
      if (initializers_.count(name)) continue;
      if (only_batch_norm_statistics(name)) {
        buffers_.insert(name);
      } else if (reaches_weight_slot(name, 0)) {
        parameters_.insert(name);
      } else {
        data_inputs_.push_back(name);
      }
    }
    parameters_.insert(initializers_.begin(), initializers_.end());
    // Integer initializers (shapes, indices) and those read only as control
    // operands (Resize's scales, Reshape's shape) are constants, not weights.
    for (const auto& init : g_.initializer()) {
      auto it = consumers_.find(init.name());
      const bool control_only = it != consumers_.end() && std::all_of(it->second.begin(), it->second.end(), [&](auto c) {
        return is_control_slot(g_.node(c.first).op_type(), c.second);
      });
      if (!is_floating(init.data_type()) || control_only) {
        parameters_.erase(init.name());
        buffers_.insert(init.name());
      }
    }
    for (const std::string& name : folded_) {
      parameters_.erase(name);
      buffers_.insert(name);
    }
    // Parameters the exporter shares: torch writes one initializer for
    // parameters of equal value (an untrained model's LayerNorm weights,
    // all ones) and names the others by Identity nodes of it. Each is a
    // parameter of the model (trained, they differ), so an Identity of a
    // parameter is one too, and its node no op.
    for (int i = 0; i < g_.node_size(); ++i) {
      const auto& n = g_.node(i);
      if (n.op_type() != "Identity" || n.input_size() != 1 || n.output_size() != 1 || !parameters_.count(n.input(0))) continue;
      const ValueInfo* source = info(n.input(0));
      if (source == nullptr || initializers_.count(n.output(0)) || only_batch_norm_statistics(n.output(0))) continue;
      infos_[n.output(0)] = *source;
      parameters_.insert(n.output(0));
      constant_parameter_nodes_.insert(i);
    }
    // Weights stored as Constant nodes (Paddle2ONNX writes them so): a
    // floating-point Constant that reaches a weight operand is a parameter,
    // and its node is no op.
    for (int i = 0; i < g_.node_size(); ++i) {
      const auto& n = g_.node(i);
      if (n.op_type() != "Constant" || n.output_size() != 1) continue;
      const onnx::TensorProto* value = nullptr;
      for (const auto& a : n.attribute()) {
        if (a.name() == "value" && a.has_t()) value = &a.t();
      }
      // Scalars are constants of the model (a scale, an epsilon), not weights.
      int64_t count = 1;
      if (value != nullptr) {
        for (int64_t d : value->dims()) count *= std::max<int64_t>(d, 0);
      }
      if (value == nullptr || count < 2 || !is_floating(value->data_type()) || !reaches_weight_slot(n.output(0), 0)) continue;
      ValueInfo info;
      info.has_shape = true;
      info.elem_type = value->data_type();
      info.dims.assign(value->dims().begin(), value->dims().end());
      infos_[n.output(0)] = info;
      parameters_.insert(n.output(0));
      constant_parameter_nodes_.insert(i);
    }
    // Running statistics are buffers. An initializer the exporter shares
    // between a statistic and a parameter of equal value (an untrained
    // model's zero bias and zero running mean) stays the parameter.
    for (const auto& n : g_.node()) {
      if (n.op_type() != "BatchNormalization") continue;
      for (int s = 3; s < n.input_size(); ++s) {
        if (initializers_.count(n.input(s)) && only_batch_norm_statistics(n.input(s))) {
          parameters_.erase(n.input(s));
          buffers_.insert(n.input(s));
        }
      }
    }
  }

  // What a graph input is when it is no tensor ("a sequence", ...), or null.
  const char* non_tensor_kind(const std::string& name) const {
    for (const auto& input : g_.input()) {
      if (input.name() != name || !input.has_type() || input.type().has_tensor_type()) continue;
      const auto& type = input.type();
      return type.has_sequence_type() ? "a sequence"
             : type.has_optional_type() ? "an optional"
             : type.has_map_type()      ? "a map"
             : type.has_sparse_tensor_type() ? "a sparse tensor"
                                             : "of a type devplace does not know";
    }
    return nullptr;
  }

  Status check_data_inputs() {
    for (const std::string& name : data_inputs_) {
      const ValueInfo* v = info(name);
      if (const char* kind = non_tensor_kind(name))
        return invalid_input(source_ + ": input '" + name + "' is " + kind + ", not a tensor: devplace reads graphs of tensors");
      if (v == nullptr || !v->has_shape)
        return invalid_input(source_ + ": input '" + name + "' has no shape: export the model with fixed input shapes");
      for (size_t d = 0; d < v->dims.size(); ++d) {
        if (v->dims[d] < 0)
          return invalid_input(source_ + ": input '" + name + "' has a symbolic dimension '" + v->symbolic + "' (dim " +
                               std::to_string(d) + "): give its shape with --input-shape " + name + "=" + dims_text(v->dims) +
                               " (each ? a number), or export the model with fixed shapes");
      }
    }
    return Status::ok_status();
  }

  int file_index(int i) const { return file_index_.empty() ? i : file_index_[static_cast<size_t>(i)]; }

  const ValueInfo* info(const std::string& name) const {
    auto it = infos_.find(name);
    return it == infos_.end() ? nullptr : &it->second;
  }

  int64_t bytes_of(const ValueInfo* v) const {
    if (!known(v)) return 0;
    return static_cast<int64_t>(elements(v->dims)) * element(v->elem_type).second;
  }

  TensorId add_tensor(OpId op, const std::string& name) {
    const ValueInfo* v = info(name);
    std::vector<int64_t> shape;
    if (known(v)) shape = v->dims;
    const auto [dtype, size] = element(v ? v->elem_type : 0);
    const int64_t bytes = known(v) ? static_cast<int64_t>(elements(v->dims)) * size : 0;
    const TensorId t = builder_->add_output(op, name, shape, dtype, bytes);
    tensors_[name] = t;
    return t;
  }

  Status add_ops() {
    builder_.emplace(g_.name().empty() ? "onnx" : g_.name());
    std::vector<std::string> names = node_names();
    std::vector<int32_t> marks = layer_marks(names);
    for (const std::string& name : data_inputs_) {
      const OpId op = builder_->add_op(name, "Input");
      builder_->mutable_op(op).kernel_mask = 1u << static_cast<int>(DeviceKind::kCpu);
      builder_->mutable_op(op).layer = marks.empty() ? -1 : 0;
      add_tensor(op, name);
    }
    // Ops are added in node order; their inputs may be produced by later
    // nodes (ONNX wants topological order, but we do not rely on it), so
    // outputs first, then inputs.
    std::vector<OpId> op_of(g_.node_size());
    for (int i = 0; i < g_.node_size(); ++i) {
      if (constant_parameter_nodes_.count(i)) continue;
      const auto& n = g_.node(i);
      // A subgraph whose work depends on run-time values (a branch, a trip
      // count) has no one placement of its ops.
      if (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan")
        return invalid_input(source_ + ": " + node_place(names[i], file_index(i)) + ": control flow (" + n.op_type() +
                             (n.op_type() == "If"     ? " on a condition known only at run time"
                              : n.op_type() == "Loop" ? " with a trip count or a condition known only at run time, or "
                                                        "more than devplace unrolls: 100000 iterations, 1000000 nodes"
                                                      : "") +
                             ") is not supported: export the model traced for fixed inputs (torch.onnx.export without "
                             "scripting unrolls loops and takes the branch)");
      const OpId op = builder_->add_op(names[i], n.op_type());
      op_of[i] = op;
      builder_->mutable_op(op).layer = marks[i];
      for (const std::string& o : n.output()) {
        if (o.empty()) continue;
        if (tensors_.count(o) || parameters_.count(o))
          return invalid_input(source_ + ": " + node_place(names[i], file_index(i)) + ": output '" + o + "' is already produced elsewhere");
        if (!known(info(o)))
          return invalid_input(source_ + ": " + node_place(names[i], file_index(i)) + ": output '" + o +
                               "' has unknown dimensions after shape inference (they depend on run-time values); export "
                               "the model with fixed shapes");
        add_tensor(op, o);
      }
    }
    std::unordered_set<std::string> owned;
    for (int i = 0; i < g_.node_size(); ++i) {
      if (constant_parameter_nodes_.count(i)) continue;
      const auto& n = g_.node(i);
      const OpId op = op_of[i];
      std::vector<const ValueInfo*> in, out;
      int64_t param_bytes = 0;
      for (const std::string& name : n.input()) {
        in.push_back(name.empty() ? nullptr : info(name));
        if (name.empty() || buffers_.count(name)) continue;
        if (parameters_.count(name)) {
          if (owned.insert(name).second) param_bytes += bytes_of(info(name));
          continue;
        }
        auto t = tensors_.find(name);
        if (t == tensors_.end()) return invalid_input(source_ + ": " + node_place(names[i], file_index(i)) + ": input '" + name + "' names no tensor");
        builder_->add_input(op, t->second);
      }
      for (const std::string& name : n.output()) out.push_back(info(name));
      const double flops = node_flops(n, in, out);
      if (flops < 0) ++unknown_types_[n.op_type()];
      Op& o = builder_->mutable_op(op);
      o.flops = std::max(flops, 0.0);
      o.parameter_bytes = param_bytes;
    }
    return Status::ok_status();
  }

  std::vector<std::string> node_names() const {
    std::vector<std::string> names;
    std::unordered_set<std::string> used(data_inputs_.begin(), data_inputs_.end());
    for (int i = 0; i < g_.node_size(); ++i) {
      const auto& n = g_.node(i);
      std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(file_index(i)) : n.name();
      if (!used.insert(name).second) {
        name += "#" + std::to_string(i);
        used.insert(name);
      }
      names.push_back(name);
    }
    return names;
  }

  // torch names nodes "/layer1/layer1.0/conv1/Conv": mark by the first component.
  std::vector<int32_t> layer_marks(const std::vector<std::string>& names) const {
    std::vector<int32_t> marks(names.size(), -1);
    std::map<std::string, int32_t> mark_of;
    size_t scoped = 0;
    for (const std::string& n : names) scoped += n.size() > 1 && n[0] == '/' && n.find('/', 1) != std::string::npos;
    if (!names.empty() && scoped * 2 >= names.size()) {
      for (size_t i = 0; i < names.size(); ++i) {
        const std::string& n = names[i];
        if (n.size() < 2 || n[0] != '/') continue;
        const std::string first = n.substr(1, n.find('/', 1) - 1);
        auto [it, inserted] = mark_of.emplace(first, static_cast<int32_t>(mark_of.size()));
        marks[i] = it->second;
      }
      return marks;
    }
    for (size_t i = 0; i < names.size(); ++i) marks[i] = static_cast<int32_t>(i * 16 / names.size());
    return marks;
  }

  void warn() const {
    if (unknown_types_.empty()) return;
    std::string text;
    int count = 0;
    for (const auto& [type, n] : unknown_types_) {
      text += (text.empty() ? "" : ", ") + type + " (" + std::to_string(n) + ")";
      count += n;
    }
    if (count > 0)
      std::fprintf(stderr, "devplace: warning: %s: %d ops have no cost rule and cost only their bytes: %s\n", source_.c_str(),
                   count, text.c_str());
  }

  const onnx::GraphProto& g_;
  std::string source_;
  std::unordered_map<std::string, ValueInfo> infos_;
  std::unordered_set<std::string> initializers_, parameters_, buffers_;
  std::unordered_set<int> constant_parameter_nodes_;  // Constant nodes that hold weights: no ops
  std::unordered_set<std::string> folded_;
  std::vector<int> file_index_;  // after folding, each node's index in the file; empty: the same
  std::vector<std::string> data_inputs_;
  std::unordered_map<std::string, std::vector<std::pair<int, int>>> consumers_;
  std::unordered_map<std::string, TensorId> tensors_;
  std::optional<GraphBuilder> builder_;
  std::map<std::string, int> unknown_types_;
};

// Every node input names a graph input, an initializer or a node output
// (checked before ONNX's checker, whose message does not name the node).
Status check_inputs_exist(const onnx::GraphProto& g, const std::string& source) {
  std::unordered_set<std::string> defined;
  for (const auto& v : g.input()) defined.insert(v.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node()) defined.insert(n.output().begin(), n.output().end());
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    for (const std::string& name : n.input()) {
      if (name.empty() || defined.count(name)) continue;
      const std::string node = n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name();
      return invalid_input(source + ": " + node_place(node, i) + ": input '" + name + "' names no tensor");
    }
  }
  return Status::ok_status();
}

// Rounds of folding and shape inference at most (each a shape inference
// in a child process); Swin-T needs 15.
constexpr int kMaxFoldingRounds = 64;

// Whether some node output has no fixed shape after inference.
bool has_unknown_output(const onnx::GraphProto& g) {
  std::unordered_map<std::string, bool> fixed;
  for (const auto& v : g.value_info()) fixed[v.name()] = known_shape(info_of(v));
  for (const auto& v : g.output()) fixed[v.name()] = fixed[v.name()] || known_shape(info_of(v));
  for (const auto& n : g.node()) {
    for (const std::string& o : n.output()) {
      if (!o.empty() && !fixed[o]) return true;
    }
  }
  return false;
}

// An If or a Loop: folding may take the branch or unroll the loop.
bool has_control_flow(const onnx::GraphProto& g) {
  return std::any_of(g.node().begin(), g.node().end(),
                     [](const onnx::NodeProto& n) { return n.op_type() == "If" || n.op_type() == "Loop"; });
}

// --input-shape: each named data input gets the given dimensions (its
// fixed ones must agree); the shapes inferred from the old ones are
// dropped, to be inferred again.
Status apply_input_shapes(onnx::ModelProto& model, const InputShapes& shapes, const std::string& source) {
  if (shapes.empty()) return Status::ok_status();
  onnx::GraphProto& g = *model.mutable_graph();
  std::unordered_set<std::string> initializers;
  for (const auto& t : g.initializer()) initializers.insert(t.name());
  for (const auto& [name, dims] : shapes) {
    onnx::ValueInfoProto* input = nullptr;
    std::string names;
    for (auto& v : *g.mutable_input()) {
      if (initializers.count(v.name())) continue;
      if (v.name() == name) input = &v;
      names += (names.empty() ? "" : ", ") + v.name();
    }
    const std::string given = "--input-shape " + name + "=" + dims_text(dims);
    if (input == nullptr) return invalid_input(given + ": " + source + " has no input '" + name + "' (its inputs: " + names + ")");
    const ValueInfo old = info_of(*input);
    if (old.has_shape && old.dims.size() != dims.size())
      return invalid_input(given + ": " + source + "'s input '" + name + "' has " + std::to_string(old.dims.size()) +
                           " dimensions (" + dims_text(old.dims) + ")");
    for (size_t d = 0; old.has_shape && d < dims.size(); ++d) {
      if (old.dims[d] >= 0 && old.dims[d] != dims[d])
        return invalid_input(given + ": " + source + "'s input '" + name + "' is " + dims_text(old.dims) + ": dimension " +
                             std::to_string(d) + " is fixed at " + std::to_string(old.dims[d]));
    }
    auto* shape = input->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }
  g.clear_value_info();
  for (auto& out : *g.mutable_output()) {
    if (!known_shape(info_of(out))) out.mutable_type()->mutable_tensor_type()->clear_shape();
  }
  return Status::ok_status();
}

}  // namespace

bool detect_onnx_model(const std::string& path, std::string_view) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

Result<Graph> parse_onnx_model(std::string_view bytes, const std::string& source, const InputShapes& shapes) {
  try {
    if (bytes.empty()) return invalid_input(source + ": empty file, not an ONNX model");
    onnx::ModelProto model;
    if (!model.ParseFromArray(bytes.data(), static_cast<int>(std::min<size_t>(bytes.size(), INT32_MAX))))
      return invalid_input(source + ": not an ONNX model (the protobuf does not parse: truncated or corrupted file?)");
    if (!model.has_graph() || model.graph().node_size() == 0)
      return invalid_input(source + ": not an ONNX model (no graph with nodes; a protobuf of another kind?)");
    DEVPLACE_RETURN_IF_ERROR(check_inputs_exist(model.graph(), source));
    // The checker before shape inference: ONNX 1.12's shape inference can crash on malformed
    // nodes (found by fuzz_onnx) that the checker rejects.
    try {
      onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      std::string detail = e.what();
      std::replace(detail.begin(), detail.end(), '\n', ' ');
      while (detail.find("  ") != std::string::npos) detail.erase(detail.find("  "), 1);
      if (!detail.empty() && detail.back() == ' ') detail.pop_back();
      if (detail.size() > 300) detail = detail.substr(0, 297) + "...";
      return invalid_input(source + ": invalid ONNX model: " + detail);
    }
    DEVPLACE_RETURN_IF_ERROR(apply_input_shapes(model, shapes, source));
    infer_onnx_shapes(model, source);
    // Shapes computed by constant subgraphs (torch's x.expand(n, -1, -1))
    // stay unknown to shape inference: fold those subgraphs (and take the
    // branch of an If whose condition they decide, unroll a Loop whose trip
    // count they fix), then infer again. A round's shapes may let the next
    // fold more (Swin's window padding: a Pad whose pads fold, then the
    // Shape of its output), so rounds go on while they fold something.
    // Einsum's output shapes, which ONNX inference leaves unknown, are
    // completed in the same rounds.
    FoldedConstants folded;
    for (int round = 0; round < kMaxFoldingRounds && (has_unknown_output(model.graph()) || has_control_flow(model.graph()));
         ++round) {
      FoldedConstants more = fold_onnx_constants(model);
      const int completed = complete_einsum_shapes(model);
      if (more.node_index.empty() && completed == 0) break;
      infer_onnx_shapes(model, source);
      if (more.node_index.empty()) continue;  // nothing folded: the nodes are as they were
      // Node indices of this round are into the nodes an earlier fold left
      // (none folded before: the file's own).
      if (!folded.node_index.empty()) {
        for (int& index : more.node_index) index = folded.node_index[static_cast<size_t>(index)];
        more.names.insert(folded.names.begin(), folded.names.end());
      }
      folded = std::move(more);
    }
    return OnnxReader(model, source, std::move(folded)).read();
  } catch (const std::exception& e) {
    return invalid_input(source + ": cannot read the ONNX model: " + e.what());
  }
}

Result<Graph> read_onnx_model(const std::string& path) { return read_onnx_model_with_shapes(path, {}); }

Result<Graph> read_onnx_model_with_shapes(const std::string& path, const InputShapes& shapes) {
  DEVPLACE_ASSIGN_OR_RETURN(std::string bytes, read_binary_file(path, kMaxTextFileBytes));  // protobuf reads at most 2 GiB
  return parse_onnx_model(bytes, path, shapes);
}

Status write_synthetic_onnx_model(const std::string& path, int64_t target_bytes) {
  constexpr int64_t kWidth = 1024;
  const int64_t layers = std::max<int64_t>(1, target_bytes / (kWidth * kWidth * 4));
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("synthetic");
  auto value = [&](onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(32);
    t->mutable_shape()->add_dim()->set_dim_value(kWidth);
  };
  value(g->add_input(), "x");
  std::string prev = "x";
  std::vector<float> weights(kWidth * kWidth);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f;
  for (int64_t l = 0; l < layers; ++l) {
    const std::string w = "w" + std::to_string(l), y = "gemm" + std::to_string(l), r = "relu" + std::to_string(l);
    onnx::TensorProto* init = g->add_initializer();
    init->set_name(w);
    init->set_data_type(onnx::TensorProto::FLOAT);
    init->add_dims(kWidth);
    init->add_dims(kWidth);
    init->set_raw_data(weights.data(), weights.size() * sizeof(float));
    onnx::NodeProto* gemm = g->add_node();
    gemm->set_op_type("Gemm");
    gemm->set_name(y);
    gemm->add_input(prev);
    gemm->add_input(w);
    gemm->add_output(y);
    onnx::NodeProto* relu = g->add_node();
    relu->set_op_type("Relu");
    relu->set_name(r);
    relu->add_input(y);
    relu->add_output(r);
    prev = r;
  }
  value(g->add_output(), prev);
  std::string bytes;
  if (!model.SerializeToString(&bytes)) return internal_error("cannot serialize the synthetic ONNX model");
  return write_text_file(path, bytes);
}

}  // namespace devplace
