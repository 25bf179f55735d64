// File: op_types.cc
// Op type classes (see op_types.h).
#include "graph/op_types.h"

#include <array>
#include <cctype>
#include <string>

namespace devplace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_contraction_op_type(std::string_view op_type) {
  const std::string t = lowercase(op_type);
  static constexpr std::array<std::string_view, 12> kParts = {
      "matmul", "conv", "gemm", "lstm", "gru", "rnn", "attention", "einsum", "linear", "dense", "addmm", "bmm"};
  for (std::string_view p : kParts) {
    if (t.find(p) != std::string::npos) return true;
  }
  return t == "mm";
}

bool is_gather_op_type(std::string_view op_type) {
  const std::string t = lowercase(op_type);
  return t == "gather" || t == "gatherv2" || t == "embedding" || t == "aten.embedding";
}

}  // namespace devplace
