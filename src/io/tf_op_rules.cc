// File: tf_op_rules.cc
// FLOP rules and simple shape rules for TensorFlow op types (see internal/tf_op_rules.h).
#include "io/internal/tf_op_rules.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace devplace {

namespace {

// FLOPs per output element of elementwise ops: 1 for arithmetic, 4 for transcendental ones.
double elementwise_flops(std::string_view op) {
  static const std::map<std::string, double, std::less<>> ops = {
      {"Add", 1}, {"AddV2", 1}, {"Sub", 1}, {"Mul", 1}, {"Div", 1}, {"RealDiv", 1}, {"DivNoNan", 1}, {"FloorDiv", 1},
      {"FloorMod", 1}, {"Maximum", 1}, {"Minimum", 1}, {"Neg", 1}, {"Abs", 1}, {"Sign", 1}, {"Square", 1},
      {"SquaredDifference", 2}, {"Reciprocal", 1}, {"Inv", 1}, {"Relu", 1}, {"Relu6", 1}, {"ReluGrad", 1}, {"Relu6Grad", 1},
      {"LeakyRelu", 2}, {"LeakyReluGrad", 2}, {"Elu", 4}, {"EluGrad", 2}, {"Selu", 4}, {"SeluGrad", 2}, {"Sigmoid", 4},
      {"SigmoidGrad", 2}, {"Tanh", 4}, {"TanhGrad", 2}, {"Exp", 4}, {"Expm1", 4}, {"Log", 4}, {"Log1p", 4}, {"Sqrt", 4},
      {"SqrtGrad", 2}, {"Rsqrt", 4}, {"RsqrtGrad", 2}, {"Pow", 4}, {"Erf", 4}, {"Softplus", 4}, {"SoftplusGrad", 4},
      {"Softsign", 2}, {"Sin", 4}, {"Cos", 4}, {"Floor", 1}, {"Ceil", 1}, {"Round", 1}, {"Rint", 1}, {"Greater", 1},
      {"GreaterEqual", 1}, {"Less", 1}, {"LessEqual", 1}, {"Equal", 1}, {"NotEqual", 1}, {"LogicalAnd", 1},
      {"LogicalOr", 1}, {"LogicalNot", 1}, {"Select", 1}, {"SelectV2", 1}, {"Cast", 1}, {"ClipByValue", 2},
      {"BiasAdd", 1}, {"BiasAddV1", 1}, {"Gelu", 8}, {"Mish", 8}, {"Swish", 5}};
  auto it = ops.find(op);
  return it == ops.end() ? -1 : it->second;
}

// Elementwise ops whose output has their first input's shape.
bool same_shape_op(std::string_view op) {
  static const std::set<std::string, std::less<>> ops = {
      "Identity", "StopGradient", "PreventGradient", "Snapshot", "Softmax", "LogSoftmax", "ZerosLike", "OnesLike",
      "BiasAdd", "BiasAddV1", "Relu", "Relu6", "Elu", "Selu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Rsqrt", "Neg",
      "Abs", "Square", "Softplus", "LeakyRelu", "Gelu", "Cast", "ReluGrad", "Relu6Grad", "SigmoidGrad", "TanhGrad",
      "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyAdagrad", "ApplyRMSProp", "Assign", "AssignAdd",
      "AssignSub", "CheckNumerics", "Dropout", "Floor", "Ceil", "Round", "Reciprocal"};
  return ops.count(op) > 0;
}

int64_t attr_int(const tf::NodeDef& node, std::string_view key, int64_t fallback) {
  const tf::AttrValue* a = tf_attr(node, key);
  return a != nullptr && a->value_case() == tf::AttrValue::kI ? a->i() : fallback;
}

bool attr_bool(const tf::NodeDef& node, std::string_view key) {
  const tf::AttrValue* a = tf_attr(node, key);
  return a != nullptr && a->value_case() == tf::AttrValue::kB && a->b();
}

// Product of an int-list attr (a pooling window's ksize), 1 when absent.
double attr_list_product(const tf::NodeDef& node, std::string_view key) {
  const tf::AttrValue* a = tf_attr(node, key);
  double p = 1;
  if (a == nullptr || a->value_case() != tf::AttrValue::kList) return p;
  for (int64_t v : a->list().i()) p *= static_cast<double>(std::max<int64_t>(v, 1));
  return p;
}

bool known(const TfShape* s) { return s != nullptr && s->fully_known(); }

// Broadcast of two known shapes (numpy rules), or nullopt when they do not broadcast.
std::optional<TfShape> broadcast(const TfShape& a, const TfShape& b) {
  TfShape out;
  out.rank_known = true;
  const size_t rank = std::max(a.dims.size(), b.dims.size());
  out.dims.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < rank - a.dims.size() ? 1 : a.dims[i - (rank - a.dims.size())];
    const int64_t y = i < rank - b.dims.size() ? 1 : b.dims[i - (rank - b.dims.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out.dims[i] = x == 1 ? y : x;
  }
  return out;
}

double max_input_elements(const std::vector<const TfShape*>& in) {
  double most = 0;
  for (const TfShape* s : in) {
    if (known(s)) most = std::max(most, s->elements());
  }
  return most;
}

}  // namespace

bool TfShape::fully_known() const {
  if (!rank_known) return false;
  return std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; });
}

double TfShape::elements() const {
  if (!fully_known()) return 0;
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(d);
  return n;
}

const tf::AttrValue* tf_attr(const tf::NodeDef& node, std::string_view key) {
  // The last entry wins, as when a map is parsed.
  const tf::AttrValue* found = nullptr;
  for (const tf::AttrEntry& e : node.attr()) {
    if (e.key() == key) found = &e.value();
  }
  return found;
}

TfShape tf_shape_of(const tf::TensorShapeProto& shape) {
  TfShape s;
  if (shape.unknown_rank()) return s;
  s.rank_known = true;
  for (const auto& d : shape.dim()) s.dims.push_back(d.size() < 0 ? -1 : d.size());
  return s;
}

bool tf_is_layout_op(std::string_view op) {
  static const std::set<std::string, std::less<>> ops = {
      "Identity", "IdentityN", "Const", "HostConst", "Placeholder", "PlaceholderWithDefault", "NoOp", "VariableV2",
      "Variable", "VarHandleOp", "ReadVariableOp", "AssignVariableOp", "Assign", "VarIsInitializedOp",
      "IsVariableInitialized", "Reshape", "Shape", "ShapeN", "Size", "Rank", "Transpose", "ConcatV2", "Concat", "Pack",
      "Unpack", "Split", "SplitV", "Squeeze", "ExpandDims", "Slice", "StridedSlice", "StridedSliceGrad", "Gather",
      "GatherV2", "GatherNd", "Fill", "ZerosLike", "OnesLike", "StopGradient", "PreventGradient", "Snapshot", "Tile",
      "Pad", "PadV2", "MirrorPad", "BroadcastTo", "BroadcastGradientArgs", "Range", "OneHot", "Enter", "Exit", "Switch",
      "Merge", "NextIteration", "LoopCond", "ControlTrigger", "DynamicStitch", "Unique", "Where", "Reverse", "ReverseV2",
      "InvertPermutation", "ConcatOffset", "SaveV2", "RestoreV2", "Save", "Restore", "MergeV2Checkpoints",
      "StringJoin", "Assert", "Print", "PrintV2", "CheckNumerics", "Dropout", "TruncatedNormal", "RandomUniform",
      "RandomStandardNormal", "ScatterNd", "Bitcast", "EnsureShape", "DebugIdentity"};
  return ops.count(op) > 0;
}

bool tf_is_variable_op(std::string_view op) { return op == "VariableV2" || op == "Variable" || op == "VarHandleOp"; }

bool tf_is_update_op(std::string_view op) {
  return op.rfind("Apply", 0) == 0 || op.rfind("ResourceApply", 0) == 0 || op.rfind("SparseApply", 0) == 0 ||
         op.rfind("ResourceSparseApply", 0) == 0;
}

double tf_node_flops(const tf::NodeDef& node, const std::vector<const TfShape*>& in, const std::vector<const TfShape*>& out) {
  const std::string& t = node.op();
  const bool out0 = !out.empty() && known(out[0]);
  const double out_elems = out0 ? out[0]->elements() : 0;
  auto in_known = [&](size_t i) { return i < in.size() && known(in[i]); };
  if (t == "MatMul") {
    if (!in_known(0) || !in_known(1) || in[0]->dims.size() != 2 || in[1]->dims.size() != 2) return 0;
    const double m = static_cast<double>(attr_bool(node, "transpose_a") ? in[0]->dims[1] : in[0]->dims[0]);
    const double k = static_cast<double>(attr_bool(node, "transpose_a") ? in[0]->dims[0] : in[0]->dims[1]);
    const double n = static_cast<double>(attr_bool(node, "transpose_b") ? in[1]->dims[0] : in[1]->dims[1]);
    return 2.0 * m * n * k;
  }
  if (t == "BatchMatMul" || t == "BatchMatMulV2" || t == "BatchMatMulV3") {
    if (!in_known(0) || !out0 || in[0]->dims.size() < 2) return 0;
    const auto& a = in[0]->dims;
    const double k = static_cast<double>(attr_bool(node, "adj_x") ? a[a.size() - 2] : a.back());
    return 2.0 * out_elems * k;
  }
  if (t == "Conv2D" || t == "Conv3D" || t == "DepthwiseConv2dNative") {
    // Filter [kh, kw, (kd,) in, out] (depthwise: [kh, kw, in, multiplier]).
    if (!in_known(1) || !out0 || in[1]->dims.size() < 3) return 0;
    const auto& f = in[1]->dims;
    double per = 1;
    for (size_t i = 0; i + 1 < f.size(); ++i) per *= static_cast<double>(f[i]);
    if (t == "DepthwiseConv2dNative") per /= std::max<double>(1, static_cast<double>(f[f.size() - 2]));
    return 2.0 * out_elems * per;
  }
  if (t == "Conv2DBackpropInput" || t == "Conv2DBackpropFilter" || t == "DepthwiseConv2dNativeBackpropInput" ||
      t == "DepthwiseConv2dNativeBackpropFilter") {
    // As much work as the forward convolution: per element of the output
    // gradient (input 2), one multiply-add per filter tap and input channel.
    const TfShape* filter = t.find("Filter") != std::string::npos ? (out0 ? out[0] : nullptr) : (in_known(1) ? in[1] : nullptr);
    if (!in_known(2) || filter == nullptr || filter->dims.size() < 3) return 0;
    double per = 1;
    for (size_t i = 0; i + 1 < filter->dims.size(); ++i) per *= static_cast<double>(filter->dims[i]);
    if (t.rfind("Depthwise", 0) == 0) per /= std::max<double>(1, static_cast<double>(filter->dims[filter->dims.size() - 2]));
    return 2.0 * in[2]->elements() * per;
  }
  if (t == "BiasAddGrad") return in_known(0) ? in[0]->elements() : 0;
  if (t == "Softmax" || t == "LogSoftmax") return 5.0 * out_elems;
  if (t == "SoftmaxCrossEntropyWithLogits" || t == "SparseSoftmaxCrossEntropyWithLogits") return in_known(0) ? 8.0 * in[0]->elements() : 0;
  if (t == "MaxPool" || t == "AvgPool" || t == "MaxPoolV2" || t == "MaxPool3D" || t == "AvgPool3D") return out_elems * attr_list_product(node, "ksize");
  if (t == "MaxPoolGrad" || t == "AvgPoolGrad" || t == "MaxPool3DGrad" || t == "AvgPool3DGrad") return out_elems * attr_list_product(node, "ksize");
  if (t.rfind("FusedBatchNorm", 0) == 0) return (t.find("Grad") != std::string::npos ? 8.0 : 4.0) * out_elems;
  if (t == "LRN" || t == "LRNGrad") return 5.0 * out_elems * static_cast<double>(2 * attr_int(node, "depth_radius", 5) + 1);
  if (t == "Sum" || t == "Mean" || t == "Max" || t == "Min" || t == "Prod" || t == "ArgMax" || t == "ArgMin" || t == "All" ||
      t == "Any" || t == "L2Loss")
    return in_known(0) ? in[0]->elements() : 0;
  if (t == "AddN" || t == "AccumulateNV2") return static_cast<double>(std::max<size_t>(in.size(), 1) - 1) * out_elems;
  // Optimizer updates, per parameter (the largest input: the variable or its gradient).
  if (tf_is_update_op(t)) {
    double per = 4;
    if (t.find("GradientDescent") != std::string::npos) per = 2;
    if (t.find("Adam") != std::string::npos) per = 12;
    if (t.find("RMSProp") != std::string::npos) per = 8;
    return per * max_input_elements(in);
  }
  if (tf_is_layout_op(t)) return 0;
  const double per = elementwise_flops(t);
  if (per >= 0) {
    if (out0) return per * out_elems;
    return per * max_input_elements(in);
  }
  return -1;
}

std::optional<TfShape> tf_infer_output_shape(const tf::NodeDef& node, const std::vector<const TfShape*>& in) {
  const std::string& t = node.op();
  if (in.empty() || in[0] == nullptr) return std::nullopt;
  if (t == "MatMul") {
    if (!known(in[0]) || in.size() < 2 || !known(in[1]) || in[0]->dims.size() != 2 || in[1]->dims.size() != 2) return std::nullopt;
    TfShape s;
    s.rank_known = true;
    s.dims = {attr_bool(node, "transpose_a") ? in[0]->dims[1] : in[0]->dims[0],
              attr_bool(node, "transpose_b") ? in[1]->dims[0] : in[1]->dims[1]};
    return s;
  }
  const double per = elementwise_flops(t);
  if (per >= 0 && in.size() == 2 && known(in[0]) && known(in[1]) && t != "BiasAdd" && t != "BiasAddV1") return broadcast(*in[0], *in[1]);
  if (same_shape_op(t) && in[0]->rank_known) return *in[0];
  return std::nullopt;
}

}  // namespace devplace
