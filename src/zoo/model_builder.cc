// File: model_builder.cc
// The zoo's op vocabulary (FLOP conventions in model_builder.h).
#include "zoo/model_builder.h"

#include "common/check.h"

namespace devplace {

int64_t ModelBuilder::elements(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

OpId ModelBuilder::new_op(const std::string& name, const std::string& type, double flops) {
  const OpId op = b_.add_op(full(name), type);
  b_.mutable_op(op).flops = flops;
  b_.mutable_op(op).layer = layer_;
  return op;
}

TensorId ModelBuilder::out(OpId op, Shape shape, DType dtype) {
  const std::string name = b_.op(op).name + ":" + std::to_string(b_.op(op).outputs.size());
  return b_.add_output(op, name, std::move(shape), dtype);
}

TensorId ModelBuilder::input(const std::string& name, Shape shape, DType dtype) {
  const OpId op = new_op(name, "Input", 0);
  b_.mutable_op(op).kernel_mask = 1u << static_cast<int>(DeviceKind::kCpu);
  return out(op, std::move(shape), dtype);
}

TensorId ModelBuilder::variable(const std::string& name, Shape shape) {
  const OpId op = new_op(name, "VariableV2", 0);
  b_.mutable_op(op).parameter_bytes = elements(shape) * 4;
  return out(op, std::move(shape));
}

TensorId ModelBuilder::zeros(const std::string& name, Shape shape) {
  const OpId op = new_op(name, "Zeros", static_cast<double>(elements(shape)));
  return out(op, std::move(shape));
}

TensorId ModelBuilder::matmul(const std::string& name, TensorId a, TensorId b) {
  const Shape& sa = shape(a);
  const Shape& sb = shape(b);
  DEVPLACE_CHECK(sa.size() == 2 && sb.size() == 2 && sa[1] == sb[0]);
  const OpId op = new_op(name, "MatMul", 2.0 * static_cast<double>(sa[0]) * static_cast<double>(sa[1]) * static_cast<double>(sb[1]));
  b_.add_input(op, a);
  b_.add_input(op, b);
  return out(op, {sa[0], sb[1]});
}

TensorId ModelBuilder::batch_matmul(const std::string& name, TensorId a, TensorId b, bool transpose_b) {
  const Shape sa = shape(a);
  const Shape sb = shape(b);
  DEVPLACE_CHECK(sa.size() == 3 && sb.size() == 3 && sa[0] == sb[0]);
  const int64_t k = sa[2];
  const int64_t n = transpose_b ? sb[1] : sb[2];
  DEVPLACE_CHECK((transpose_b ? sb[2] : sb[1]) == k);
  const OpId op = new_op(name, "BatchMatMul", 2.0 * static_cast<double>(sa[0]) * static_cast<double>(sa[1]) * static_cast<double>(k) * static_cast<double>(n));
  b_.add_input(op, a);
  b_.add_input(op, b);
  return out(op, {sa[0], sa[1], n});
}

TensorId ModelBuilder::conv2d(const std::string& name, TensorId x, int64_t out_channels, int64_t kh, int64_t kw,
                              int64_t stride, bool same_padding) {
  const Shape s = shape(x);  // NHWC
  DEVPLACE_CHECK(s.size() == 4);
  const TensorId filter = variable(name + "/weights", {kh, kw, s[3], out_channels});
  const int64_t ho = same_padding ? (s[1] + stride - 1) / stride : (s[1] - kh) / stride + 1;
  const int64_t wo = same_padding ? (s[2] + stride - 1) / stride : (s[2] - kw) / stride + 1;
  const double flops = 2.0 * static_cast<double>(s[0] * ho * wo * out_channels) * static_cast<double>(kh * kw * s[3]);
  const OpId op = new_op(name, "Conv2D", flops);
  b_.add_input(op, x);
  b_.add_input(op, filter);
  return out(op, {s[0], ho, wo, out_channels});
}

TensorId ModelBuilder::dense(const std::string& name, TensorId x, int64_t units, bool bias) {
  const TensorId w = variable(name + "/weights", {shape(x)[1], units});
  TensorId y = matmul(name + "/MatMul", x, w);
  if (!bias) return y;
  const TensorId b = variable(name + "/bias", {units});
  return bias_add(name + "/BiasAdd", y, b);
}

TensorId ModelBuilder::elementwise(const std::string& name, const std::string& type, TensorId a, TensorId b) {
  const Shape s = shape(a);
  const OpId op = new_op(name, type, static_cast<double>(elements(s)));
  b_.add_input(op, a);
  b_.add_input(op, b);
  return out(op, s);
}

TensorId ModelBuilder::add(const std::string& name, TensorId a, TensorId b) { return elementwise(name, "Add", a, b); }
TensorId ModelBuilder::mul(const std::string& name, TensorId a, TensorId b) { return elementwise(name, "Mul", a, b); }
TensorId ModelBuilder::bias_add(const std::string& name, TensorId x, TensorId bias) {
  return elementwise(name, "BiasAdd", x, bias);
}

TensorId ModelBuilder::unary(const std::string& name, const std::string& type, TensorId x, double flops_per_element) {
  const Shape s = shape(x);
  const OpId op = new_op(name, type, flops_per_element * static_cast<double>(elements(s)));
  b_.add_input(op, x);
  return out(op, s);
}

TensorId ModelBuilder::concat(const std::string& name, const std::vector<TensorId>& parts, int axis) {
  Shape s = shape(parts.front());
  s[axis] = 0;
  for (TensorId p : parts) s[axis] += shape(p)[axis];
  const OpId op = new_op(name, "ConcatV2", 0);
  for (TensorId p : parts) b_.add_input(op, p);
  return out(op, s);
}

std::vector<TensorId> ModelBuilder::split(const std::string& name, TensorId x, int parts, int axis) {
  Shape s = shape(x);
  DEVPLACE_CHECK(s[axis] % parts == 0);
  s[axis] /= parts;
  const OpId op = new_op(name, "Split", 0);
  b_.add_input(op, x);
  std::vector<TensorId> outs;
  for (int i = 0; i < parts; ++i) outs.push_back(out(op, s));
  return outs;
}

TensorId ModelBuilder::reshape(const std::string& name, TensorId x, Shape s) {
  DEVPLACE_CHECK(elements(s) == elements(shape(x)));
  const OpId op = new_op(name, "Reshape", 0);
  b_.add_input(op, x);
  return out(op, std::move(s));
}

TensorId ModelBuilder::transpose(const std::string& name, TensorId x, Shape s) {
  DEVPLACE_CHECK(elements(s) == elements(shape(x)));
  const OpId op = new_op(name, "Transpose", 0);
  b_.add_input(op, x);
  return out(op, std::move(s));
}

TensorId ModelBuilder::normalization(const std::string& name, const std::string& type, TensorId x,
                                     double flops_per_element) {
  const Shape s = shape(x);
  const TensorId scale_offset = variable(name + "/gamma_beta", {2, s.back()});
  const OpId op = new_op(name, type, flops_per_element * static_cast<double>(elements(s)));
  b_.add_input(op, x);
  b_.add_input(op, scale_offset);
  return out(op, s);
}

TensorId ModelBuilder::batch_norm(const std::string& name, TensorId x) { return normalization(name, "FusedBatchNorm", x, 4); }
TensorId ModelBuilder::layer_norm(const std::string& name, TensorId x) { return normalization(name, "LayerNorm", x, 5); }

TensorId ModelBuilder::pool(const std::string& name, const std::string& type, TensorId x, int64_t k, int64_t stride,
                            bool same_padding) {
  const Shape s = shape(x);
  const int64_t ho = same_padding ? (s[1] + stride - 1) / stride : (s[1] - k) / stride + 1;
  const int64_t wo = same_padding ? (s[2] + stride - 1) / stride : (s[2] - k) / stride + 1;
  const Shape o = {s[0], ho, wo, s[3]};
  const OpId op = new_op(name, type, static_cast<double>(elements(o) * k * k));
  b_.add_input(op, x);
  return out(op, o);
}

TensorId ModelBuilder::global_avg_pool(const std::string& name, TensorId x) {
  const Shape s = shape(x);
  const OpId op = new_op(name, "Mean", static_cast<double>(elements(s)));
  b_.add_input(op, x);
  return out(op, {s[0], s[3]});
}

TensorId ModelBuilder::embedding(const std::string& name, TensorId ids, TensorId table) {
  const int64_t n = shape(ids)[0];
  const int64_t dim = shape(table)[1];
  const OpId op = new_op(name, "Gather", 0);
  b_.add_input(op, table);
  b_.add_input(op, ids);
  // A gather reads only the rows it returns, not the whole table.
  b_.mutable_op(op).memory_traffic_bytes = 2 * n * dim * 4 + n * 4;
  return out(op, {n, dim});
}

TensorId ModelBuilder::softmax_cross_entropy(const std::string& name, TensorId logits, TensorId labels) {
  const Shape s = shape(logits);
  const OpId op = new_op(name, "SoftmaxCrossEntropyWithLogits", 6.0 * static_cast<double>(elements(s)));
  b_.add_input(op, logits);
  b_.add_input(op, labels);
  return out(op, {});
}

TensorId ModelBuilder::add_n(const std::string& name, const std::vector<TensorId>& parts) {
  const OpId op = new_op(name, "AddN", static_cast<double>(parts.size()) * static_cast<double>(elements(shape(parts.front()))));
  for (TensorId p : parts) b_.add_input(op, p);
  return out(op, shape(parts.front()));
}

ModelBuilder::LstmState ModelBuilder::lstm_cell(const std::string& name, TensorId x, LstmState state, TensorId weights,
                                                TensorId bias) {
  const TensorId xh = concat(name + "/concat", {x, state.h}, 1);
  const TensorId gates = bias_add(name + "/BiasAdd", matmul(name + "/MatMul", xh, weights), bias);
  const std::vector<TensorId> g = split(name + "/split", gates, 4, 1);  // i, j, f, o
  const TensorId i = sigmoid(name + "/Sigmoid_i", g[0]);
  const TensorId j = tanh(name + "/Tanh_j", g[1]);
  const TensorId f = sigmoid(name + "/Sigmoid_f", g[2]);
  const TensorId o = sigmoid(name + "/Sigmoid_o", g[3]);
  const TensorId c = add(name + "/add_c", mul(name + "/mul_fc", f, state.c), mul(name + "/mul_ij", i, j));
  const TensorId h = mul(name + "/mul_h", o, tanh(name + "/Tanh_c", c));
  return {h, c};
}

}  // namespace devplace
