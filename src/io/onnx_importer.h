// File: onnx_importer.h
// Reads an ONNX model (with or without weights) into a forward Graph: one op
// per node, tensors shaped by ONNX shape inference, FLOPs from the shapes.
// Only the ONNX sources in io/ (onnx_*.cc) see ONNX headers; this header
// does not, so the rest of devplace builds without them. Rules
// (docs/formats.md, "ONNX"):
// - Parameters are the initializers and, for models exported without
//   weights (torch.onnx.export(export_params=False)), the graph inputs that
//   reach a weight operand (Conv/Gemm/MatMul B, normalization scale and bias,
//   LSTM/GRU/RNN W, R, B, an embedding Gather's table, a rank-1 operand of
//   Add/Mul, a broadcast vector against a larger Add/Mul operand or under
//   Expand) directly or through layout ops (Identity, Transpose, Reshape,
//   Slice, Concat, Squeeze, Unsqueeze, Cast), and floating-point Constant
//   nodes (2+ elements) that reach a weight operand (their nodes are no
//   ops). A parameter's bytes belong to the first node reading it;
//   parameters are not tensors of the graph.
//   BatchNormalization's running mean and variance are buffers: not
//   parameters, not tensors (they are tiny).
// - Other graph inputs are data: "Input" ops with a CPU kernel only.
// - Every data input must have a fixed shape: a symbolic dimension (dynamic
//   axes) is an error naming the input and the dimension, unless
//   --input-shape gives the input's shape (then the shapes inside are
//   inferred again from it).
// - FLOPs: Conv, ConvTranspose, Gemm, MatMul (batched too), LSTM, GRU, RNN,
//   normalizations, pooling, softmax, reductions and elementwise ops from
//   their shapes; layout ops (Reshape, Transpose, Concat, Gather, Shape, ...)
//   cost only their bytes; any other op type costs its bytes and is listed in
//   one warning on stderr.
// - Layer marks: the first component of torch's "/module/..." node names, in
//   order of first appearance; else 16 contiguous buckets of the node order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "graph/graph.h"
#include "io/importer.h"

namespace devplace {

// Errors name the file and the node: "m.onnx: node 'add1' (#0): input 'ghost' names no tensor".
Result<Graph> read_onnx_model(const std::string& path);
// With fixed shapes for (some of) its inputs: errors name the input when it
// does not exist or the shape contradicts the model's.
Result<Graph> read_onnx_model_with_shapes(const std::string& path, const InputShapes& shapes);
// Same, from the file's bytes; `source` names it in errors and warnings.
Result<Graph> parse_onnx_model(std::string_view bytes, const std::string& source, const InputShapes& shapes = {});
// For the importer registry: a ".onnx" file.
bool detect_onnx_model(const std::string& path, std::string_view head);

// Writes a synthetic ONNX model with weights of about `target_bytes` (a stack
// of Gemm + Relu layers with float initializers), for the import benchmark.
Status write_synthetic_onnx_model(const std::string& path, int64_t target_bytes);

}  // namespace devplace
