// File: tf_op_rules.h
// What devplace knows about TensorFlow op types: FLOPs of one execution
// from the shapes (as the ONNX importer's rules: 2 per multiply-add),
// output shapes of a few common ops when a GraphDef was written without
// _output_shapes, and the attr lookups both need. Private to the
// TensorFlow importer.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "io/proto/tf_graph.pb.h"

namespace devplace {

// A tensor's shape as far as the GraphDef tells it.
struct TfShape {
  std::vector<int64_t> dims;  // -1: unknown dimension
  bool rank_known = false;

  bool fully_known() const;
  double elements() const;  // product of the dims (1 for a scalar); 0 unless fully known
};

// The attr named `key`, or null.
const tf::AttrValue* tf_attr(const tf::NodeDef& node, std::string_view key);
TfShape tf_shape_of(const tf::TensorShapeProto& shape);

// FLOPs of one execution of `node`, or -1 when no rule knows its op type.
// `inputs`/`outputs`: the shapes of its data inputs and outputs (null: unknown).
double tf_node_flops(const tf::NodeDef& node, const std::vector<const TfShape*>& inputs, const std::vector<const TfShape*>& outputs);

// Output 0's shape from the inputs' for ops whose rule is simple
// (elementwise, BiasAdd, MatMul, Softmax, ...); nullopt otherwise.
std::optional<TfShape> tf_infer_output_shape(const tf::NodeDef& node, const std::vector<const TfShape*>& inputs);

// Ops whose work is bookkeeping or layout: no FLOPs, only their bytes.
bool tf_is_layout_op(std::string_view op);
// Variables: ops that hold a trained weight (parameter_bytes from their shape attr).
bool tf_is_variable_op(std::string_view op);
// Optimizer updates (Apply*, ResourceApply*, ...): the update phase.
bool tf_is_update_op(std::string_view op);

}  // namespace devplace
