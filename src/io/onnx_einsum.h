// File: onnx_einsum.h
// ONNX Einsum: the output shape and the FLOPs of an equation over operands
// of known shapes, and the shapes ONNX shape inference leaves unknown for
// Einsum nodes (it gives their rank only, and torch writes equations with
// spaces, "B G H I D, B G H J D -> B G H I J", as MaxViT's attention does).
//
// Equations: one term per operand, separated by commas, optionally "->"
// and the output term; letters name dimensions (case-sensitive), spaces
// are ignored, and "..." stands for the dimensions a term does not name
// (broadcast across operands, numpy style). Without "->" the output is
// "..." then the letters that appear once, in alphabetical order.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <cstdint>

namespace onnx {
class ModelProto;
}

namespace devplace {

struct EinsumResult {
  std::vector<int64_t> output;  // the output's dimensions
  // Multiply-adds as 2 FLOPs each: 2 x (operands - 1) x the product of
  // every dimension the equation names (the loop nest a naive einsum
  // runs); one operand (a sum or a transpose): the product once.
  double flops = 0;
};

// Nothing when the equation is malformed or does not fit the shapes (a
// term of the wrong rank, a letter with two sizes).
std::optional<EinsumResult> einsum(std::string_view equation, const std::vector<std::vector<int64_t>>& operands);

// Writes the output shape of every Einsum node whose operands' shapes are
// known (graph inputs, initializers, value_info) and whose output's is
// not, into value_info. Returns how many it wrote; never throws.
int complete_einsum_shapes(onnx::ModelProto& model);

}  // namespace devplace
