// File: onnx_einsum.cc
// Einsum equations over known shapes (see onnx_einsum.h).
#include "io/onnx_einsum.h"

#include <algorithm>
#include <exception>
#include <map>
#include <string>
#include <unordered_map>

#include <onnx/onnx_pb.h>

namespace devplace {
namespace {

// One term: its letters in order, and where "..." stands among them (-1: nowhere).
struct Term {
  std::string letters;
  int ellipsis_at = -1;
};

std::optional<Term> parse_term(std::string_view text) {
  Term term;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      term.letters.push_back(c);
      ++i;
    } else if (text.substr(i, 3) == "...") {
      if (term.ellipsis_at >= 0) return std::nullopt;
      term.ellipsis_at = static_cast<int>(term.letters.size());
      i += 3;
    } else {
      return std::nullopt;
    }
  }
  return term;
}

// Numpy broadcasting of the dimensions "..." stands for, right-aligned.
std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1, db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[out.size() - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace

std::optional<EinsumResult> einsum(std::string_view equation, const std::vector<std::vector<int64_t>>& operands) {
  std::string text;
  for (char c : equation) {
    if (c != ' ') text.push_back(c);
  }
  const size_t arrow = text.find("->");
  const std::string lhs = text.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t begin = 0;;) {
    const size_t comma = lhs.find(',', begin);
    std::optional<Term> term = parse_term(std::string_view(lhs).substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (!term) return std::nullopt;
    terms.push_back(std::move(*term));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (terms.size() != operands.size() || operands.empty()) return std::nullopt;

  std::map<char, int64_t> size;  // of each letter
  std::map<char, int> uses;
  std::vector<int64_t> ellipsis;
  bool any_ellipsis = false;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& term = terms[i];
    const std::vector<int64_t>& dims = operands[i];
    const size_t named = term.letters.size();
    if (dims.size() < named || (term.ellipsis_at < 0 && dims.size() != named)) return std::nullopt;
    const size_t extra = dims.size() - named;  // the dimensions "..." stands for
    for (size_t k = 0; k < named; ++k) {
      const size_t at = term.ellipsis_at >= 0 && k >= static_cast<size_t>(term.ellipsis_at) ? k + extra : k;
      const char c = term.letters[k];
      const int64_t d = dims[at];
      if (d < 0) return std::nullopt;
      auto [it, fresh] = size.emplace(c, d);
      if (!fresh && it->second != d) {
        if (it->second != 1 && d != 1) return std::nullopt;  // a size of 1 broadcasts
        it->second = std::max(it->second, d);
      }
      ++uses[c];
    }
    if (term.ellipsis_at >= 0) {
      any_ellipsis = true;
      const auto first = dims.begin() + term.ellipsis_at;
      std::optional<std::vector<int64_t>> b = broadcast(ellipsis, std::vector<int64_t>(first, first + static_cast<std::ptrdiff_t>(extra)));
      if (!b) return std::nullopt;
      ellipsis = std::move(*b);
    }
  }

  Term out;
  if (arrow != std::string::npos) {
    std::optional<Term> parsed = parse_term(std::string_view(text).substr(arrow + 2));
    if (!parsed) return std::nullopt;
    out = std::move(*parsed);
    for (size_t k = 0; k < out.letters.size(); ++k) {
      if (!size.count(out.letters[k]) || out.letters.find(out.letters[k]) != k) return std::nullopt;
    }
  } else {
    out.ellipsis_at = any_ellipsis ? 0 : -1;
    for (const auto& [c, n] : uses) {
      if (n == 1) out.letters.push_back(c);  // std::map: alphabetical order
    }
  }
  EinsumResult result;
  for (size_t k = 0; k <= out.letters.size(); ++k) {
    if (out.ellipsis_at == static_cast<int>(k)) result.output.insert(result.output.end(), ellipsis.begin(), ellipsis.end());
    if (k < out.letters.size()) result.output.push_back(size.at(out.letters[k]));
  }
  double loops = 1;
  for (const auto& [c, d] : size) loops *= static_cast<double>(d);
  for (int64_t d : ellipsis) loops *= static_cast<double>(d);
  result.flops = operands.size() >= 2 ? 2.0 * static_cast<double>(operands.size() - 1) * loops : loops;
  return result;
}

int complete_einsum_shapes(onnx::ModelProto& model) {
  try {
    onnx::GraphProto& g = *model.mutable_graph();
    struct Known {
      std::vector<int64_t> dims;
      int elem_type = 0;
    };
    std::unordered_map<std::string, Known> known;
    auto note = [&](const onnx::ValueInfoProto& v) {
      if (!v.has_type() || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
      Known k{{}, v.type().tensor_type().elem_type()};
      for (const auto& d : v.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0) return;
        k.dims.push_back(d.dim_value());
      }
      known[v.name()] = std::move(k);
    };
    for (const auto& v : g.input()) note(v);
    for (const auto& v : g.value_info()) note(v);
    for (const auto& t : g.initializer()) known[t.name()] = Known{{t.dims().begin(), t.dims().end()}, t.data_type()};
    std::unordered_map<std::string, int> value_info_at;
    for (int i = 0; i < g.value_info_size(); ++i) value_info_at[g.value_info(i).name()] = i;

    int written = 0;
    for (const auto& n : g.node()) {
      if (n.op_type() != "Einsum" || !(n.domain().empty() || n.domain() == "ai.onnx") || n.output_size() != 1 ||
          n.output(0).empty() || known.count(n.output(0)))
        continue;
      std::string equation;
      for (const auto& a : n.attribute()) {
        if (a.name() == "equation") equation = a.s();
      }
      std::vector<std::vector<int64_t>> operands;
      int elem_type = 0;
      for (const std::string& in : n.input()) {
        auto it = known.find(in);
        if (it == known.end()) break;
        operands.push_back(it->second.dims);
        elem_type = it->second.elem_type;
      }
      if (operands.size() != static_cast<size_t>(n.input_size())) continue;
      std::optional<EinsumResult> result = einsum(equation, operands);
      if (!result) continue;
      auto at = value_info_at.find(n.output(0));
      onnx::ValueInfoProto* v = at != value_info_at.end() ? g.mutable_value_info(at->second) : g.add_value_info();
      v->set_name(n.output(0));
      onnx::TypeProto_Tensor* tensor = v->mutable_type()->mutable_tensor_type();
      if (tensor->elem_type() == 0) tensor->set_elem_type(elem_type);
      tensor->mutable_shape()->clear_dim();
      for (int64_t d : result->output) tensor->mutable_shape()->add_dim()->set_dim_value(d);
      known[n.output(0)] = Known{result->output, tensor->elem_type()};
      ++written;
    }
    return written;
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace devplace
