// File: op_types.h
// Classes of op types shared by the training expansion and the cost model.
// Op types are free-form strings (TensorFlow, ONNX and PyTorch spell them
// differently), so the classes match case-insensitively on known names.
#pragma once

#include <string>
#include <string_view>

namespace devplace {

// Matrix products and convolutions (MatMul, Gemm, Conv2D, LSTM cells, attention
// scores, einsum, addmm, ...): compute-bound, 2x FLOPs in the backward pass.
bool is_contraction_op_type(std::string_view op_type);

// ASCII lower case, for matching op types.
std::string lowercase(std::string_view s);

// Embedding lookups (Gather, GatherV2, Embedding, embedding): input 0 is the
// table, and its gradient touches only the rows read.
bool is_gather_op_type(std::string_view op_type);

}  // namespace devplace
