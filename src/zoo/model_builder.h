// File: model_builder.h
// ModelBuilder: a small layer on GraphBuilder for writing the zoo's models at
// TensorFlow-op granularity. Each method adds one op (a matmul, a bias add, a
// sigmoid, a conv, ...) with its output shape, FLOPs and bytes computed from
// the input shapes, named "<scope>/<name>" and marked with the current layer.
//
// FLOP conventions (per output element unless said): matmul 2*m*k*n; conv
// 2*N*Ho*Wo*Cout*Kh*Kw*Cin; add/mul/bias-add/relu 1; sigmoid/tanh/exp 4
// (a transcendental is a few FMAs); softmax 5 per element (max, sub, exp,
// sum, div); batch norm 4 per element; pooling Kh*Kw per output element.
// Weights are Variable ops that own parameter_bytes (as TensorFlow variables
// do), so weights shared over time steps are one op read by many.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "graph/builder.h"
#include "graph/graph.h"

namespace devplace {

class ModelBuilder {
 public:
  using Shape = std::vector<int64_t>;

  explicit ModelBuilder(std::string graph_name) : b_(std::move(graph_name)) {}

  // Current layer mark for the ops added next (-1 = none) and name scope.
  void set_layer(int32_t layer) { layer_ = layer; }
  int32_t layer() const { return layer_; }
  void set_scope(std::string scope) { scope_ = std::move(scope); }

  const Shape& shape(TensorId t) const { return b_.tensor(t).shape; }

  // Sources. input: a data tensor fed from the host (CPU kernel only).
  TensorId input(const std::string& name, Shape shape, DType dtype = DType::kFloat32);
  TensorId variable(const std::string& name, Shape shape);  // weights: owns their bytes
  TensorId zeros(const std::string& name, Shape shape);     // a constant (initial RNN state)

  // Dense ops.
  TensorId matmul(const std::string& name, TensorId a, TensorId b);  // [m,k] x [k,n]
  TensorId batch_matmul(const std::string& name, TensorId a, TensorId b, bool transpose_b);  // [B,m,k] x [B,k,n]
  TensorId conv2d(const std::string& name, TensorId x, int64_t out_channels, int64_t kh, int64_t kw, int64_t stride,
                  bool same_padding);  // NHWC; adds its filter Variable
  TensorId dense(const std::string& name, TensorId x, int64_t units, bool bias = true);  // matmul + bias add

  // Elementwise and shape ops.
  TensorId add(const std::string& name, TensorId a, TensorId b);
  TensorId mul(const std::string& name, TensorId a, TensorId b);
  TensorId bias_add(const std::string& name, TensorId x, TensorId bias);
  TensorId unary(const std::string& name, const std::string& type, TensorId x, double flops_per_element);
  TensorId sigmoid(const std::string& name, TensorId x) { return unary(name, "Sigmoid", x, 4); }
  TensorId tanh(const std::string& name, TensorId x) { return unary(name, "Tanh", x, 4); }
  TensorId relu(const std::string& name, TensorId x) { return unary(name, "Relu", x, 1); }
  TensorId softmax(const std::string& name, TensorId x) { return unary(name, "Softmax", x, 5); }
  TensorId concat(const std::string& name, const std::vector<TensorId>& parts, int axis);
  std::vector<TensorId> split(const std::string& name, TensorId x, int parts, int axis);
  TensorId reshape(const std::string& name, TensorId x, Shape shape);
  TensorId transpose(const std::string& name, TensorId x, Shape shape);

  // Layers.
  TensorId batch_norm(const std::string& name, TensorId x);  // FusedBatchNorm with its gamma/beta Variable
  TensorId layer_norm(const std::string& name, TensorId x);
  TensorId pool(const std::string& name, const std::string& type, TensorId x, int64_t k, int64_t stride, bool same_padding);
  TensorId global_avg_pool(const std::string& name, TensorId x);  // NHWC -> [N, C]
  TensorId embedding(const std::string& name, TensorId ids, TensorId table);  // Gather: [N] ids -> [N, dim]
  // Softmax cross-entropy of logits [N, classes] against labels [N]: a scalar loss.
  TensorId softmax_cross_entropy(const std::string& name, TensorId logits, TensorId labels);
  // Sum of scalars (the total loss).
  TensorId add_n(const std::string& name, const std::vector<TensorId>& parts);

  // One LSTM cell at TensorFlow granularity (BasicLSTMCell): concat(x, h),
  // matmul with W [in+hidden, 4*hidden], bias add, split into i, j, f, o,
  // c' = sigmoid(f) * c + sigmoid(i) * tanh(j), h' = sigmoid(o) * tanh(c').
  struct LstmState {
    TensorId h;
    TensorId c;
  };
  LstmState lstm_cell(const std::string& name, TensorId x, LstmState state, TensorId weights, TensorId bias);

  Result<Graph> build() && { return std::move(b_).build(); }
  int num_ops() const { return b_.num_ops(); }

 private:
  std::string full(const std::string& name) const { return scope_.empty() ? name : scope_ + "/" + name; }
  OpId new_op(const std::string& name, const std::string& type, double flops);
  // One FLOP per element of a's shape (b broadcasts, e.g. a bias).
  TensorId elementwise(const std::string& name, const std::string& type, TensorId a, TensorId b);
  // A normalization with its [2, channels] scale-and-offset Variable.
  TensorId normalization(const std::string& name, const std::string& type, TensorId x, double flops_per_element);
  TensorId out(OpId op, Shape shape, DType dtype = DType::kFloat32);
  static int64_t elements(const Shape& s);

  GraphBuilder b_;
  int32_t layer_ = -1;
  std::string scope_;
};

}  // namespace devplace
