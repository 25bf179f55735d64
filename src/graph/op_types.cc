// File: op_types.cc
// Op type classes (see op_types.h).
#include "graph/op_types.h"

#include <array>
#include <cctype>
#include <string>

namespace devplace {

bool is_contraction_op_type(std::string_view op_type) {
  std::string t(op_type);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::array<std::string_view, 12> kParts = {
      "matmul", "conv", "gemm", "lstm", "gru", "rnn", "attention", "einsum", "linear", "dense", "addmm", "bmm"};
  for (std::string_view p : kParts) {
    if (t.find(p) != std::string::npos) return true;
  }
  return t == "mm";
}

}  // namespace devplace
