// File: tf_graphdef_importer.cc
// TensorFlow GraphDefs into Graphs (rules in tf_graphdef_importer.h). Every
// protobuf failure becomes an Error (internal/tf_proto_io.h); the graph's
// own checks (cycles, names) come from GraphBuilder, prefixed with the file.
#include "io/tf_graphdef_importer.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "common/file_io.h"
#include "common/format.h"
#include "graph/builder.h"
#include "io/internal/tf_costs.h"
#include "io/internal/tf_device_spec.h"
#include "io/internal/tf_op_rules.h"
#include "io/internal/tf_proto_io.h"
#include "io/proto/tf_graph.pb.h"

namespace devplace {

namespace {

// Outputs one node may have (an input "n:70000" is an error, not 70000 tensors).
constexpr int kMaxOutputs = 1 << 16;
// Bytes one tensor or variable may hold: a model fits in 1 PB (as the ONNX importer).
constexpr double kMaxTensorBytes = 1e15;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// devplace's dtype and the element size in bytes of a TensorFlow DataType
// (references read as their type); size 0: no dense size (strings,
// resource handles, variants).
std::pair<DType, int> element(int tf_type) {
  if (tf_type > 100) tf_type -= 100;
  switch (tf_type) {
    case tf::DT_FLOAT: return {DType::kFloat32, 4};
    case tf::DT_DOUBLE: return {DType::kFloat64, 8};
    case tf::DT_INT32: case tf::DT_QINT32: case tf::DT_UINT32: return {DType::kInt32, 4};
    case tf::DT_UINT8: case tf::DT_QUINT8: return {DType::kUInt8, 1};
    case tf::DT_INT8: case tf::DT_QINT8: return {DType::kInt8, 1};
    case tf::DT_INT16: case tf::DT_UINT16: case tf::DT_QINT16: case tf::DT_QUINT16: return {DType::kInt32, 2};
    case tf::DT_INT64: case tf::DT_UINT64: return {DType::kInt64, 8};
    case tf::DT_BOOL: return {DType::kBool, 1};
    case tf::DT_BFLOAT16: return {DType::kBFloat16, 2};
    case tf::DT_HALF: return {DType::kFloat16, 2};
    case tf::DT_COMPLEX64: return {DType::kFloat32, 8};
    case tf::DT_COMPLEX128: return {DType::kFloat64, 16};
    case tf::DT_STRING: return {DType::kUInt8, 0};
    default: return {DType::kFloat32, 0};  // resource handles, variants, unknown types
  }
}

bool is_string_type(int tf_type) { return tf_type == tf::DT_STRING || tf_type == tf::DT_STRING_REF; }

bool comparison_op(std::string_view op) {
  return op == "Equal" || op == "NotEqual" || op == "Less" || op == "LessEqual" || op == "Greater" || op == "GreaterEqual" ||
         op == "LogicalAnd" || op == "LogicalOr" || op == "LogicalNot" || op == "IsVariableInitialized" || op == "VarIsInitializedOp" ||
         op == "IsFinite" || op == "IsNan" || op == "IsInf";
}

// Ops with no outputs (when the file does not list their _output_shapes).
bool no_output_op(std::string_view op) {
  return op == "NoOp" || op == "AssignVariableOp" || op == "ControlTrigger" || op == "SaveV2" || op == "Assert" ||
         op == "PrintV2" || op.rfind("ResourceApply", 0) == 0 || op.rfind("ResourceSparseApply", 0) == 0;
}

// A backward op: under a "gradients" (or "gradients_N") name scope, as tf.gradients names them.
bool in_gradients_scope(const std::string& name) {
  size_t start = 0;
  while (start < name.size()) {
    const size_t slash = std::min(name.find('/', start), name.size());
    if (slash == name.size()) return false;  // the last component is the op's own name
    const std::string_view part(name.data() + start, slash - start);
    if (part == "gradients" || (part.rfind("gradients_", 0) == 0 && part.size() > 10 &&
                                std::all_of(part.begin() + 10, part.end(), [](char c) { return c >= '0' && c <= '9'; })))
      return true;
    start = slash + 1;
  }
  return false;
}

std::string node_place(const std::string& name, int index) { return "node '" + quoted_value(name) + "' (#" + std::to_string(index) + ")"; }

struct InputRef {
  int node = -1;
  int index = 0;  // output index; unused for control inputs
  bool control = false;
};

struct OutputInfo {
  TfShape shape;
  int tf_type = tf::DT_FLOAT;
  bool type_known = false;
};

class GraphDefReader {
 public:
  GraphDefReader(const tf::GraphDef& g, std::string source, const TfMeasuredCosts* costs)
      : g_(g), source_(std::move(source)), costs_(costs) {}

  Result<Graph> read() {
    if (g_.node_size() == 0) return invalid_input(source_ + ": not a TensorFlow GraphDef (no nodes; a protobuf of another kind?)");
    DEVPLACE_RETURN_IF_ERROR(index_names());
    DEVPLACE_RETURN_IF_ERROR(resolve_inputs());
    DEVPLACE_RETURN_IF_ERROR(count_outputs());
    DEVPLACE_RETURN_IF_ERROR(infer_shapes());
    DEVPLACE_RETURN_IF_ERROR(add_ops());
    DEVPLACE_RETURN_IF_ERROR(colocate());
    Result<Graph> graph = std::move(*builder_).build();
    if (!graph.ok()) {
      std::string hint;
      if (graph.error().message().rfind("cycle:", 0) == 0 && has_op("NextIteration"))
        hint = " (a TensorFlow while loop: control flow is not supported; unroll the loop)";
      return Error(graph.error().code(), source_ + ": " + graph.error().message() + hint);
    }
    warn();
    return graph;
  }

 private:
  Status error(int node, const std::string& what) const {
    return invalid_input(source_ + ": " + node_place(g_.node(node).name(), node) + ": " + what);
  }

  bool has_op(std::string_view op) const {
    return std::any_of(g_.node().begin(), g_.node().end(), [&](const tf::NodeDef& n) { return n.op() == op; });
  }

  Status index_names() {
    for (int i = 0; i < g_.node_size(); ++i) {
      const std::string& name = g_.node(i).name();
      if (name.empty()) return invalid_input(source_ + ": node #" + std::to_string(i) + ": empty name");
      if (name.find(':') != std::string::npos || name[0] == '^')
        return error(i, "TensorFlow node names hold no ':' and do not start with '^'");
      if (!is_valid_utf8(name)) return error(i, "name: not valid UTF-8");
      if (!is_valid_utf8(g_.node(i).op())) return error(i, "op: not valid UTF-8");
      if (g_.node(i).op().empty()) return error(i, "empty op");
      auto [it, inserted] = index_.emplace(name, i);
      if (!inserted) return error(i, "duplicate node name (first #" + std::to_string(it->second) + ")");
    }
    return Status::ok_status();
  }

  Status resolve_inputs() {
    inputs_.resize(g_.node_size());
    for (int i = 0; i < g_.node_size(); ++i) {
      const tf::NodeDef& n = g_.node(i);
      for (int k = 0; k < n.input_size(); ++k) {
        const std::string& text = n.input(k);
        const std::string shown = "input '" + quoted_value(text) + "'";
        if (text.empty()) return error(i, "input #" + std::to_string(k) + " is empty");
        InputRef ref;
        std::string name = text;
        if (text[0] == '^') {
          ref.control = true;
          name = text.substr(1);
        } else if (const size_t colon = text.rfind(':'); colon != std::string::npos) {
          const std::string_view digits = std::string_view(text).substr(colon + 1);
          int index = 0;
          const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
          if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || index < 0 || index >= kMaxOutputs)
            return error(i, shown + ": expected NODE, NODE:K (K below " + std::to_string(kMaxOutputs) + ") or ^NODE");
          ref.index = index;
          name = text.substr(0, colon);
        }
        auto it = index_.find(name);
        if (it == index_.end()) return error(i, shown + " names no node");
        ref.node = it->second;
        if (ref.control) has_control_consumers_.insert(ref.node);
        inputs_[i].push_back(ref);
      }
    }
    return Status::ok_status();
  }

  // Each node's outputs: as many as _output_shapes lists (an input naming
  // one past them is an error), else as many as its consumers read (at
  // least one, but for ops that have none).
  Status count_outputs() {
    const int n = g_.node_size();
    outputs_.resize(n);
    std::vector<int> read(n, 0);
    std::vector<std::pair<int, int>> first_reader(n, {-1, -1});  // (node, input #) reading the highest output
    for (int i = 0; i < n; ++i) {
      for (size_t k = 0; k < inputs_[i].size(); ++k) {
        const InputRef& r = inputs_[i][k];
        if (r.control) continue;
        if (r.index + 1 > read[r.node]) {
          read[r.node] = r.index + 1;
          first_reader[r.node] = {i, static_cast<int>(k)};
        }
      }
    }
    for (int i = 0; i < n; ++i) {
      const tf::NodeDef& node = g_.node(i);
      const tf::AttrValue* shapes = tf_attr(node, "_output_shapes");
      if (shapes != nullptr && shapes->value_case() == tf::AttrValue::kList) {
        const int listed = shapes->list().shape_size();
        if (read[i] > listed) {
          const auto [reader, k] = first_reader[i];
          return error(reader, "input '" + quoted_value(g_.node(reader).input(k)) + "' names output " + std::to_string(read[i] - 1) +
                                   " of '" + quoted_value(node.name()) + "', which has " + std::to_string(listed) +
                                   " outputs (its _output_shapes)");
        }
        outputs_[i].resize(listed);
        for (int k = 0; k < listed; ++k) outputs_[i][k].shape = tf_shape_of(shapes->list().shape(k));
        shapes_listed_.insert(i);
      } else {
        outputs_[i].resize(std::max(read[i], no_output_op(node.op()) ? 0 : 1));
        // Output 0 from the node's own attrs: a placeholder's or variable's shape, a constant's value.
        if (!outputs_[i].empty()) {
          if (const tf::AttrValue* s = tf_attr(node, "shape"); s != nullptr && s->value_case() == tf::AttrValue::kShape) {
            outputs_[i][0].shape = tf_shape_of(s->shape());
          } else if (const tf::AttrValue* v = tf_attr(node, "value"); v != nullptr && v->value_case() == tf::AttrValue::kTensor) {
            outputs_[i][0].shape = tf_shape_of(v->tensor().tensor_shape());
          }
        }
      }
      assign_types(i);
    }
    return Status::ok_status();
  }

  void assign_types(int i) {
    const tf::NodeDef& node = g_.node(i);
    std::vector<OutputInfo>& outs = outputs_[i];
    if (outs.empty()) return;
    const std::string& op = node.op();
    auto set_all = [&](int type) {
      for (OutputInfo& o : outs) {
        o.tf_type = type;
        o.type_known = true;
      }
    };
    if (op == "VarHandleOp") return set_all(tf::DT_RESOURCE);
    if (comparison_op(op)) return set_all(tf::DT_BOOL);
    if (const tf::AttrValue* t = tf_attr(node, "T"); t != nullptr && t->value_case() == tf::AttrValue::kList && t->list().type_size() > 0) {
      for (size_t k = 0; k < outs.size(); ++k) {  // IdentityN: one type per output
        outs[k].tf_type = t->list().type(static_cast<int>(std::min<size_t>(k, t->list().type_size() - 1)));
        outs[k].type_known = true;
      }
      return;
    }
    for (const char* key : {"dtype", "T", "DstT", "out_type", "output_type", "Tout"}) {
      const tf::AttrValue* a = tf_attr(node, key);
      if (a != nullptr && a->value_case() == tf::AttrValue::kType) return set_all(a->type());
    }
    if (op == "Shape" || op == "Size" || op == "Rank") return set_all(tf::DT_INT32);
    if (op == "ArgMax" || op == "ArgMin") return set_all(tf::DT_INT64);
  }

  // Shapes the file does not list, from the inputs' (in a topological
  // order; nodes on a cycle keep theirs unknown, and build() reports the cycle).
  Status infer_shapes() {
    const int n = g_.node_size();
    std::vector<int> pending(n, 0);
    std::vector<std::vector<int>> successors(n);
    for (int i = 0; i < n; ++i) {
      for (const InputRef& r : inputs_[i]) {
        successors[r.node].push_back(i);
        ++pending[i];
      }
    }
    std::vector<int> ready;
    for (int i = n - 1; i >= 0; --i) {
      if (pending[i] == 0) ready.push_back(i);
    }
    while (!ready.empty()) {
      const int i = ready.back();
      ready.pop_back();
      if (!shapes_listed_.count(i) && !outputs_[i].empty() && !outputs_[i][0].shape.rank_known) {
        std::vector<const TfShape*> in = data_input_shapes(i);
        if (std::optional<TfShape> s = tf_infer_output_shape(g_.node(i), in)) outputs_[i][0].shape = *s;
        // ReadVariableOp: the value of a resource variable, shaped by the VarHandleOp's shape attr.
        if (g_.node(i).op() == "ReadVariableOp" && !inputs_[i].empty() && !inputs_[i][0].control)
          outputs_[i][0].shape = handle_shape(inputs_[i][0].node);
      }
      for (int s : successors[i]) {
        if (--pending[s] == 0) ready.push_back(s);
      }
    }
    return Status::ok_status();
  }

  TfShape handle_shape(int node) const {
    const tf::AttrValue* s = tf_attr(g_.node(node), "shape");
    if (g_.node(node).op() == "VarHandleOp" && s != nullptr && s->value_case() == tf::AttrValue::kShape) return tf_shape_of(s->shape());
    return {};
  }

  std::vector<const TfShape*> data_input_shapes(int i) const {
    std::vector<const TfShape*> in;
    for (const InputRef& r : inputs_[i]) {
      if (!r.control) in.push_back(&outputs_[r.node][r.index].shape);
    }
    return in;
  }

  // elements x size, or an error when the elements or bytes pass 1e15 (a
  // shape of a 0-byte type, a string or handle, is bounded by its elements).
  Result<int64_t> checked_bytes(int node, const std::string& what, double elements, int size) const {
    const double bytes = elements * std::max(size, 1);
    if (!(bytes <= kMaxTensorBytes)) {
      char text[32];
      std::snprintf(text, sizeof text, "%.3g", bytes);
      return error(node, what + " would hold " + text + " bytes: too large for a model").error();
    }
    return size == 0 ? 0 : static_cast<int64_t>(bytes);
  }

  Status add_ops() {
    std::string name = source_.substr(source_.find_last_of('/') + 1);
    for (const char* suffix : {".pbtxt", ".pb", ".graphdef", ".txt"}) {
      if (ends_with(name, suffix) && name.size() > std::string_view(suffix).size()) {
        name.resize(name.size() - std::string_view(suffix).size());
        break;
      }
    }
    builder_.emplace(name);
    const int n = g_.node_size();
    std::vector<std::vector<TensorId>> tensors(n);
    std::vector<TensorId> control(n, kNoId);
    for (int i = 0; i < n; ++i) {
      const tf::NodeDef& node = g_.node(i);
      const OpId op = builder_->add_op(node.name(), node.op());
      Op& o = builder_->mutable_op(op);
      if (in_gradients_scope(node.name())) o.phase = OpPhase::kBackward;
      if (tf_is_update_op(node.op())) o.phase = OpPhase::kUpdate;
      bool strings = false;
      for (size_t k = 0; k < outputs_[i].size(); ++k) {
        const OutputInfo& out = outputs_[i][k];
        const auto [dtype, size] = element(out.tf_type);
        strings = strings || is_string_type(out.tf_type);
        int64_t bytes = 0;
        std::vector<int64_t> shape;
        if (out.shape.fully_known()) {
          DEVPLACE_ASSIGN_OR_RETURN(bytes, checked_bytes(i, "output " + std::to_string(k), out.shape.elements(), size));
          if (size > 0) shape = out.shape.dims;
        } else if (size > 0 || !out.type_known) {
          ++unknown_shapes_;
        }
        tensors[i].push_back(builder_->add_output(op, node.name() + ":" + std::to_string(k), shape, dtype, bytes));
      }
      if (has_control_consumers_.count(i)) control[i] = builder_->add_output(op, "^" + node.name(), {}, DType::kBool, 0);
      DEVPLACE_RETURN_IF_ERROR(set_parameters(i, builder_->mutable_op(op)));
      DEVPLACE_RETURN_IF_ERROR(set_device(i, strings, builder_->mutable_op(op)));
    }
    for (int i = 0; i < n; ++i) {
      std::vector<const TfShape*> in, out;
      std::unordered_set<int> control_read;
      for (const InputRef& r : inputs_[i]) {
        if (r.control) {
          if (control_read.insert(r.node).second) builder_->add_input(i, control[r.node]);
          continue;
        }
        builder_->add_input(i, tensors[r.node][r.index]);
        in.push_back(&outputs_[r.node][r.index].shape);
      }
      for (const OutputInfo& o : outputs_[i]) out.push_back(&o.shape);
      const double flops = tf_node_flops(g_.node(i), in, out);
      if (flops < 0) ++unknown_types_[g_.node(i).op()];
      builder_->mutable_op(i).flops = std::max(flops, 0.0);
      if (costs_ != nullptr) {
        auto it = costs_->seconds.find(g_.node(i).name());
        if (it != costs_->seconds.end()) builder_->mutable_op(i).measured_time_s = it->second;
      }
    }
    return Status::ok_status();
  }

  Status set_parameters(int i, Op& op) {
    const tf::NodeDef& node = g_.node(i);
    if (!tf_is_variable_op(node.op())) return Status::ok_status();
    const tf::AttrValue* shape = tf_attr(node, "shape");
    const tf::AttrValue* dtype = tf_attr(node, "dtype");
    TfShape s;
    if (shape != nullptr && shape->value_case() == tf::AttrValue::kShape) s = tf_shape_of(shape->shape());
    if (!s.fully_known() && !outputs_[i].empty() && node.op() != "VarHandleOp") s = outputs_[i][0].shape;
    const int size = element(dtype != nullptr && dtype->value_case() == tf::AttrValue::kType ? dtype->type() : tf::DT_FLOAT).second;
    if (!s.fully_known()) {
      ++unknown_variables_;
      return Status::ok_status();
    }
    DEVPLACE_ASSIGN_OR_RETURN(op.parameter_bytes, checked_bytes(i, "variable", s.elements(), size));
    return Status::ok_status();
  }

  Status set_device(int i, bool string_outputs, Op& op) {
    const tf::NodeDef& node = g_.node(i);
    Result<TfDeviceSpec> parsed = parse_tf_device_spec(node.device());
    if (!parsed.ok()) return error(i, parsed.error().message());
    const TfDeviceSpec& spec = parsed.value();
    if (!spec.colocate_with.empty()) {
      auto it = index_.find(spec.colocate_with);
      if (it == index_.end()) return error(i, "device '@" + quoted_value(spec.colocate_with) + "' names no node to co-locate with");
      colocate_with_[i].push_back(it->second);
    }
    // Data arrives on the host; TensorFlow has no GPU kernels for strings.
    const uint8_t cpu = 1u << static_cast<int>(DeviceKind::kCpu);
    if (string_outputs || ((node.op() == "Placeholder" || node.op() == "PlaceholderWithDefault") && spec.kind != DeviceKind::kGpu))
      op.kernel_mask = cpu;
    if (!spec.kind) return Status::ok_status();
    const uint8_t kind = 1u << static_cast<int>(*spec.kind);
    if ((op.kernel_mask & kind) == 0)
      return error(i, "device '" + quoted_value(node.device()) + "': the op outputs strings, which only a CPU holds");
    if (spec.index >= 0) {
      op.pinned_device = devplace_device_name(*spec.kind, spec.index);
    } else {
      op.kernel_mask = kind;
    }
    return Status::ok_status();
  }

  // Co-location groups: the _class attr's "loc:@N" entries and "@N" devices
  // join N's group, which is named after its first node in the file.
  Status colocate() {
    const int n = g_.node_size();
    std::vector<int> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](int x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    auto unite = [&](int a, int b) {
      a = find(a);
      b = find(b);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the root is the group's first node
    };
    for (int i = 0; i < n; ++i) {
      for (int other : colocate_with_[i]) unite(i, other);
      const tf::AttrValue* cls = tf_attr(g_.node(i), "_class");
      if (cls == nullptr) continue;
      if (cls->value_case() != tf::AttrValue::kList) return error(i, "attr _class: expected a list of strings \"loc:@NODE\"");
      for (const std::string& entry : cls->list().s()) {
        if (entry.rfind("loc:@", 0) != 0) continue;  // other classes say nothing about placement
        auto it = index_.find(entry.substr(5));
        if (it == index_.end()) return error(i, "attr _class: '" + quoted_value(entry) + "' names no node");
        unite(i, it->second);
      }
    }
    std::vector<int> size(n, 0);
    for (int i = 0; i < n; ++i) ++size[find(i)];
    for (int i = 0; i < n; ++i) {
      const int root = find(i);
      if (size[root] > 1) builder_->mutable_op(i).colocation_group = g_.node(root).name();
    }
    return Status::ok_status();
  }

  void warn() const {
    if (!unknown_types_.empty()) {
      std::string text;
      int count = 0;
      for (const auto& [type, k] : unknown_types_) {
        text += (text.empty() ? "" : ", ") + quoted_value(type) + " (" + std::to_string(k) + ")";
        count += k;
      }
      std::fprintf(stderr, "devplace: warning: %s: %d ops have no cost rule and cost only their bytes: %s\n", source_.c_str(), count,
                   one_line(text, 300).c_str());
    }
    if (unknown_shapes_ > 0 || unknown_variables_ > 0)
      std::fprintf(stderr,
                   "devplace: warning: %s: %d tensors and %d variables have no known shape and count 0 bytes (write the "
                   "GraphDef with add_shapes=True for _output_shapes)\n",
                   source_.c_str(), unknown_shapes_, unknown_variables_);
  }

  const tf::GraphDef& g_;
  std::string source_;
  const TfMeasuredCosts* costs_;
  std::unordered_map<std::string, int> index_;
  std::vector<std::vector<InputRef>> inputs_;
  std::vector<std::vector<OutputInfo>> outputs_;
  std::unordered_set<int> shapes_listed_;
  std::unordered_set<int> has_control_consumers_;
  std::unordered_map<int, std::vector<int>> colocate_with_;
  std::optional<GraphBuilder> builder_;
  std::map<std::string, int> unknown_types_;
  int unknown_shapes_ = 0;
  int unknown_variables_ = 0;
};

Result<Graph> read_with_costs(std::string_view bytes, const std::string& source, const std::string& costs_path) {
  tf::GraphDef g;
  DEVPLACE_RETURN_IF_ERROR(
      parse_tf_proto(bytes, tf_proto_syntax(source), source, "TensorFlow GraphDef", /*skip_unknown_text_fields=*/false, &g));
  std::optional<TfMeasuredCosts> costs;
  if (!costs_path.empty()) {
    std::unordered_set<std::string> names;
    for (const tf::NodeDef& n : g.node()) names.insert(n.name());
    DEVPLACE_ASSIGN_OR_RETURN(costs, read_tf_costs(costs_path, names, source));
    if (costs->unmatched_nodes > 0 || costs->unknown_devices > 0) {
      std::string note = costs_path + " (" + costs->kind + "): ";
      if (costs->unmatched_nodes > 0)
        note += std::to_string(costs->unmatched_nodes) + " timed nodes are not in " + source + " (e.g. '" +
                quoted_value(costs->first_unmatched) + "')";
      if (costs->unknown_devices > 0)
        note += std::string(costs->unmatched_nodes > 0 ? "; " : "") + std::to_string(costs->unknown_devices) +
                " records on devices that are neither a CPU nor a GPU";
      std::fprintf(stderr, "devplace: note: %s: not used\n", note.c_str());
    }
  }
  return GraphDefReader(g, source, costs ? &*costs : nullptr).read();
}

}  // namespace

bool is_tf_graphdef_path(const std::string& path) {
  return ends_with(path, ".pb") || ends_with(path, ".pbtxt") || ends_with(path, ".graphdef");
}

bool detect_tf_graphdef(const std::string& path, std::string_view) { return is_tf_graphdef_path(path); }

Result<Graph> parse_tf_graphdef(std::string_view bytes, const std::string& source) { return read_with_costs(bytes, source, ""); }

Result<Graph> read_tf_graphdef(const std::string& path) { return read_tf_graphdef_with_costs(path, ""); }

Result<Graph> read_tf_graphdef_with_costs(const std::string& path, const std::string& costs_path) {
  DEVPLACE_ASSIGN_OR_RETURN(const std::string bytes, read_binary_file(path, kMaxTextFileBytes));
  return read_with_costs(bytes, path, costs_path);
}

}  // namespace devplace
