// File: builder.h
// GraphBuilder: the only way to make a Graph. Add ops, give them output tensors,
// connect inputs by tensor id, then build(), which fills consumer lists,
// validates (validate.h), computes the topological order and the co-location
// groups, and returns the immutable Graph or the first problem found.
//
//   GraphBuilder b("mlp");
//   OpId x = b.add_op("x", "Input");
//   TensorId xt = b.add_output(x, "x:0", {64, 1024}, DType::kFloat32);
//   OpId mm = b.add_op("fc", "MatMul");
//   b.add_input(mm, xt);
//   b.mutable_op(mm).flops = 2.0 * 64 * 1024 * 1024;
//   Result<Graph> g = std::move(b).build();
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string graph_name);

  // Room for this many ops and tensors (a reader that knows saves the copies of growth).
  void reserve(int ops, int tensors);
  // Adds an op with no inputs or outputs yet; returns its id (dense, from 0).
  OpId add_op(std::string name, std::string type);
  // Adds an op copied from `op`, except its inputs and outputs, which are cleared.
  OpId add_op_like(const Op& op);
  // The same, taking `op` (a reader that fills an Op first saves the copy).
  OpId add_op(Op op);
  // Renames the graph (a reader that meets the name after the ops).
  void set_name(std::string graph_name) { name_ = std::move(graph_name); }
  // Adds an output tensor to `op`. bytes < 0 means: product of shape x dtype size.
  TensorId add_output(OpId op, std::string name, std::vector<int64_t> shape, DType dtype,
                      int64_t bytes = -1);
  void add_input(OpId op, TensorId tensor);
  // Where the measured times of `kind` were taken (Graph::measured_on).
  void set_measured_on(DeviceKind kind, MeasuredOn device) { measured_on_[static_cast<int>(kind)] = std::move(device); }

  Op& mutable_op(OpId id) { return ops_[id]; }
  const Op& op(OpId id) const { return ops_[id]; }
  const Tensor& tensor(TensorId id) const { return tensors_[id]; }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  int num_tensors() const { return static_cast<int>(tensors_.size()); }

  // Validates and returns the Graph. Tensor ids are renumbered in op order
  // (then output order). Errors name the op or tensor, not a file: readers
  // add the file name as a prefix.
  Result<Graph> build() &&;

 private:
  std::string name_;
  std::vector<Op> ops_;
  std::vector<Tensor> tensors_;
  std::array<MeasuredOn, kNumDeviceKinds> measured_on_{};
};

// Bytes of a dense tensor of this shape and dtype (1 element for a scalar
// shape); -1 for a negative dimension or a size past int64.
int64_t dense_tensor_bytes(const std::vector<int64_t>& shape, DType dtype);

}  // namespace devplace
