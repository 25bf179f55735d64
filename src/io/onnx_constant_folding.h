// File: onnx_constant_folding.h
// Folds the integer computations of an ONNX graph that depend on nothing
// known only at run time: the shape arithmetic torch exports around
// `x.expand(n, -1, -1)` (ViT and most transformers),
// Where(Equal(Reshape(Concat(...)), Mul(ConstantOfShape(...), -1)), ...),
// which ONNX shape inference cannot see through. The folded values become
// initializers and their nodes leave the graph, so that a second shape
// inference finds the shapes they fed.
//
// An If whose condition folds is replaced by the branch it takes.
//
// Only small integer and boolean tensors (at most kMaxFoldedElements) are
// folded, from integer initializers and Constant nodes, and Shape and Size
// of tensors whose shapes are fixed (graph inputs, value_info). Ops folded:
// Constant, Identity, Shape, Size, ConstantOfShape, Unsqueeze, Squeeze,
// Concat, Reshape, Gather, Slice, Transpose, Cast, Range, Neg, Abs, Add,
// Sub, Mul, Div, Mod, Max and Min (of two), Equal, Less, Greater, Not,
// Where, with numpy broadcasting.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace devplace {

inline constexpr int64_t kMaxFoldedElements = 4096;

struct FoldedConstants {
  std::unordered_set<std::string> names;  // values folded into initializers: constants of the model, not parameters
  std::vector<int> node_index;            // per node left, its index in the file (errors name that)
};

// Rewrites `model` (when anything folds) and says what it did. Never
// throws; a node it cannot fold is left as it was.
FoldedConstants fold_onnx_constants(onnx::ModelProto& model);

}  // namespace devplace
