// File: onnx_constant_folding.cc
// The integer constant folder of ONNX graphs (see onnx_constant_folding.h).
// Values are held as int64 whatever their ONNX type (INT64, INT32, BOOL);
// every op checks its operands' shapes and gives up (leaves the node) on
// anything it does not expect.
#include "io/onnx_constant_folding.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "io/onnx_loop_unrolling.h"

namespace devplace {

namespace {

using onnx::TensorProto;

struct IntTensor {
  std::vector<int64_t> dims;
  std::vector<int64_t> values;  // row-major
  int type = TensorProto::INT64;
};

int64_t count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

bool integer_type(int type) { return type == TensorProto::INT64 || type == TensorProto::INT32 || type == TensorProto::BOOL; }

bool small_shape(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || d > kMaxFoldedElements) return false;
    n *= d;
    if (n > kMaxFoldedElements) return false;
  }
  return true;
}

std::optional<IntTensor> from_proto(const TensorProto& t) {
  if (!integer_type(t.data_type()) || t.data_location() == TensorProto::EXTERNAL) return std::nullopt;
  IntTensor out;
  out.type = t.data_type();
  out.dims.assign(t.dims().begin(), t.dims().end());
  if (!small_shape(out.dims)) return std::nullopt;
  const int64_t n = count(out.dims);
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    const size_t size = t.data_type() == TensorProto::INT64 ? 8 : t.data_type() == TensorProto::INT32 ? 4 : 1;
    if (raw.size() != static_cast<size_t>(n) * size) return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      const char* p = raw.data() + static_cast<size_t>(i) * size;
      if (size == 8) {
        int64_t v = 0;
        std::memcpy(&v, p, 8);
        out.values.push_back(v);
      } else if (size == 4) {
        int32_t v = 0;
        std::memcpy(&v, p, 4);
        out.values.push_back(v);
      } else {
        out.values.push_back(*p != 0);
      }
    }
  } else if (t.data_type() == TensorProto::INT64) {
    if (t.int64_data_size() != n) return std::nullopt;
    out.values.assign(t.int64_data().begin(), t.int64_data().end());
  } else {
    if (t.int32_data_size() != n) return std::nullopt;
    out.values.assign(t.int32_data().begin(), t.int32_data().end());
  }
  return out;
}

TensorProto to_proto(const std::string& name, const IntTensor& t) {
  TensorProto p;
  p.set_name(name);
  p.set_data_type(t.type);
  for (int64_t d : t.dims) p.add_dims(d);
  for (int64_t v : t.values) {
    if (t.type == TensorProto::INT64) {
      p.add_int64_data(v);
    } else {
      p.add_int32_data(static_cast<int32_t>(v));  // INT32, and BOOL as ONNX stores it
    }
  }
  return p;
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t attr_int(const onnx::NodeProto& n, const char* name, int64_t fallback) {
  const onnx::AttributeProto* a = attribute(n, name);
  return a != nullptr && a->has_i() ? a->i() : fallback;
}

// Numpy broadcasting of two shapes.
std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (size_t k = 0; k < r; ++k) {
    const int64_t da = k + a.size() >= r ? a[k + a.size() - r] : 1;
    const int64_t db = k + b.size() >= r ? b[k + b.size() - r] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[k] = da == 1 ? db : da;
  }
  return out;
}

// t's element at output position `flat` of a broadcast to out_dims.
int64_t broadcast_at(const IntTensor& t, const std::vector<int64_t>& out_dims, int64_t flat) {
  const size_t r = out_dims.size(), tr = t.dims.size();
  int64_t index = 0, stride = 1;
  for (size_t k = r; k-- > 0;) {
    const int64_t coordinate = flat % out_dims[k];
    flat /= out_dims[k];
    if (k + tr < r) continue;
    const int64_t d = t.dims[k + tr - r];
    index += (d == 1 ? 0 : coordinate) * stride;
    stride *= d;
  }
  return t.values[static_cast<size_t>(index)];
}

std::optional<IntTensor> elementwise(const std::vector<const IntTensor*>& in, int type,
                                     const std::function<std::optional<int64_t>(const std::vector<int64_t>&)>& f) {
  std::vector<int64_t> dims = in[0]->dims;
  for (size_t k = 1; k < in.size(); ++k) {
    std::optional<std::vector<int64_t>> b = broadcast(dims, in[k]->dims);
    if (!b) return std::nullopt;
    dims = *b;
  }
  if (!small_shape(dims)) return std::nullopt;
  IntTensor out;
  out.dims = dims;
  out.type = type;
  std::vector<int64_t> args(in.size());
  for (int64_t flat = 0; flat < count(dims); ++flat) {
    for (size_t k = 0; k < in.size(); ++k) args[k] = broadcast_at(*in[k], dims, flat);
    std::optional<int64_t> v = f(args);
    if (!v) return std::nullopt;
    out.values.push_back(*v);
  }
  return out;
}

// An axis in [0, rank), or nullopt.
std::optional<int64_t> axis_in(int64_t axis, int64_t rank) {
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  return axis;
}

class Folder {
 public:
  explicit Folder(onnx::ModelProto& model) : g_(*model.mutable_graph()) {
    for (const auto& o : model.opset_import()) {
      if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = o.version();
    }
  }

  FoldedConstants run() {
    auto note_shape = [&](const onnx::ValueInfoProto& v) {
      if (!v.has_type() || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
      std::vector<int64_t> dims;
      for (const auto& d : v.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0) return;
        dims.push_back(d.dim_value());
      }
      shapes_[v.name()] = dims;
    };
    for (const auto& v : g_.input()) note_shape(v);
    for (const auto& v : g_.value_info()) note_shape(v);
    for (const auto& t : g_.initializer()) {
      initializers_.insert(t.name());
      shapes_[t.name()].assign(t.dims().begin(), t.dims().end());
      if (std::optional<IntTensor> v = from_proto(t)) known_[t.name()] = std::move(*v);
    }
    std::vector<bool> folded(static_cast<size_t>(g_.node_size()), false);
    bool any = false;
    for (int pass = 0, changed = 1; changed && pass < 8; ++pass) {
      changed = 0;
      for (int i = 0; i < g_.node_size(); ++i) {
        const onnx::NodeProto& n = g_.node(i);
        if (folded[i] || n.output_size() != 1 || n.output(0).empty() || !(n.domain().empty() || n.domain() == "ai.onnx")) continue;
        std::optional<IntTensor> v;
        try {
          v = fold(n);
        } catch (const std::exception&) {
          v.reset();
        }
        if (!v || !small_shape(v->dims) || static_cast<int64_t>(v->values.size()) != count(v->dims)) continue;
        shapes_[n.output(0)] = v->dims;
        known_[n.output(0)] = std::move(*v);
        folded[i] = true;
        changed = 1;
        any = true;
      }
    }
    // An If whose condition is now known is replaced by the branch taken.
    std::vector<const onnx::GraphProto*> taken(static_cast<size_t>(g_.node_size()), nullptr);
    for (int i = 0; i < g_.node_size(); ++i) {
      const onnx::NodeProto& n = g_.node(i);
      const IntTensor* cond = n.op_type() == "If" && (n.domain().empty() || n.domain() == "ai.onnx") ? value(n, 0) : nullptr;
      if (cond == nullptr || cond->values.size() != 1) continue;
      const onnx::AttributeProto* branch = attribute(n, cond->values[0] != 0 ? "then_branch" : "else_branch");
      if (branch == nullptr || !branch->has_g() || branch->g().output_size() != n.output_size()) continue;
      taken[i] = &branch->g();
      any = true;
    }
    // A Loop whose trip count is known and whose condition stays true is unrolled.
    std::vector<int64_t> trips(static_cast<size_t>(g_.node_size()), 0);
    for (int i = 0; i < g_.node_size(); ++i) {
      const onnx::NodeProto& n = g_.node(i);
      if (n.op_type() != "Loop" || !(n.domain().empty() || n.domain() == "ai.onnx")) continue;
      const IntTensor* m = value(n, 0);
      const IntTensor* cond = value(n, 1);
      const bool cond_true = n.input_size() < 2 || n.input(1).empty() || (cond != nullptr && cond->values.size() == 1 && cond->values[0] != 0);
      const onnx::AttributeProto* body = attribute(n, "body");
      if (m == nullptr || m->values.size() != 1 || !cond_true || body == nullptr || !body->has_g()) continue;
      const int64_t n_trips = m->values[0];
      if (n_trips < 1 || n_trips > kMaxLoopTrips || n_trips * std::max(1, body->g().node_size()) > kMaxUnrolledNodes) continue;
      if (!loop_body_unrollable(n, body->g())) continue;
      trips[i] = n_trips;
      any = true;
    }
    if (!any) return {};
    FoldedConstants result;
    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    for (int i = 0; i < g_.node_size(); ++i) {
      if (taken[i] != nullptr) {
        inline_branch(g_.node(i), *taken[i], kept);
        result.node_index.resize(static_cast<size_t>(kept.size()), i);
      } else if (trips[i] > 0) {
        unroll_loop(g_.node(i), attribute(g_.node(i), "body")->g(), trips[i], opset_, g_, kept, result.names);
        result.node_index.resize(static_cast<size_t>(kept.size()), i);
      } else if (!folded[i]) {
        *kept.Add() = g_.node(i);
        result.node_index.push_back(i);
      }
    }
    // The folded values the graph left reads become initializers.
    std::unordered_set<std::string> needed;
    for (const onnx::NodeProto& n : kept) needed.insert(n.input().begin(), n.input().end());
    for (const auto& o : g_.output()) needed.insert(o.name());
    for (int i = 0; i < g_.node_size(); ++i) {
      if (!folded[i]) continue;
      const std::string& name = g_.node(i).output(0);
      if (!needed.count(name) || initializers_.count(name)) continue;
      *g_.add_initializer() = to_proto(name, known_.at(name));
      result.names.insert(name);
    }
    g_.mutable_node()->Swap(&kept);
    return result;
  }

  // Appends the branch's nodes in place of the If node `n`: the values the
  // branch makes are renamed IF/NAME (so they cannot clash with the outer
  // graph's), its outputs become the If's, and its initializers the outer
  // graph's. A branch output that the branch only passes through becomes an
  // Identity.
  void inline_branch(const onnx::NodeProto& n, const onnx::GraphProto& branch,
                     google::protobuf::RepeatedPtrField<onnx::NodeProto>& out) {
    const std::string prefix = (n.name().empty() ? n.output(0) : n.name()) + "/";
    std::unordered_map<std::string, std::string> rename;
    for (const auto& t : branch.initializer()) rename[t.name()] = prefix + t.name();
    for (const auto& b : branch.node()) {
      for (const std::string& o : b.output()) {
        if (!o.empty()) rename[o] = prefix + o;
      }
    }
    for (int k = 0; k < branch.output_size(); ++k) {
      auto it = rename.find(branch.output(k).name());
      if (it != rename.end() && it->second != n.output(k) && !n.output(k).empty()) {
        // Produced inside the branch: its producer writes the If's output.
        bool produced = false;
        for (const auto& b : branch.node()) produced = produced || std::count(b.output().begin(), b.output().end(), branch.output(k).name());
        if (produced) {
          it->second = n.output(k);
          continue;
        }
      }
      onnx::NodeProto* identity = out.Add();
      identity->set_op_type("Identity");
      identity->set_name(prefix + "output" + std::to_string(k));
      identity->add_input(it != rename.end() ? it->second : branch.output(k).name());
      identity->add_output(n.output(k));
    }
    for (const auto& t : branch.initializer()) {
      onnx::TensorProto* copy = g_.add_initializer();
      *copy = t;
      copy->set_name(rename.at(t.name()));
    }
    for (const auto& b : branch.node()) {
      onnx::NodeProto* copy = out.Add();
      *copy = b;
      copy->set_name(prefix + (b.name().empty() ? b.op_type() : b.name()));
      for (auto& name : *copy->mutable_input()) {
        if (auto it = rename.find(name); it != rename.end()) name = it->second;
      }
      for (auto& name : *copy->mutable_output()) {
        if (auto it = rename.find(name); it != rename.end()) name = it->second;
      }
    }
  }

 private:
  const IntTensor* value(const onnx::NodeProto& n, int slot) const {
    if (slot >= n.input_size() || n.input(slot).empty()) return nullptr;
    auto it = known_.find(n.input(slot));
    return it == known_.end() ? nullptr : &it->second;
  }

  // Axes from input 1 (opset 13 on) or the attribute (before).
  std::optional<std::vector<int64_t>> axes(const onnx::NodeProto& n, int slot) const {
    if (const IntTensor* t = value(n, slot)) return t->values;
    if (slot < n.input_size() && !n.input(slot).empty()) return std::nullopt;  // given at run time
    if (const onnx::AttributeProto* a = attribute(n, "axes")) return std::vector<int64_t>(a->ints().begin(), a->ints().end());
    return std::vector<int64_t>{};
  }

  std::optional<IntTensor> fold(const onnx::NodeProto& n) const {
    const std::string& op = n.op_type();
    if (op == "Constant") {
      if (const onnx::AttributeProto* a = attribute(n, "value"); a != nullptr && a->has_t()) return from_proto(a->t());
      if (const onnx::AttributeProto* a = attribute(n, "value_int")) return IntTensor{{}, {a->i()}, TensorProto::INT64};
      if (const onnx::AttributeProto* a = attribute(n, "value_ints"))
        return IntTensor{{a->ints_size()}, {a->ints().begin(), a->ints().end()}, TensorProto::INT64};
      return std::nullopt;
    }
    if (op == "Shape" || op == "Size") {
      if (n.input_size() < 1) return std::nullopt;
      auto it = shapes_.find(n.input(0));
      if (it == shapes_.end()) return std::nullopt;
      const std::vector<int64_t>& dims = it->second;
      if (op == "Size") return IntTensor{{}, {count(dims)}, TensorProto::INT64};
      const int64_t r = static_cast<int64_t>(dims.size());
      int64_t start = attr_int(n, "start", 0), end = attr_int(n, "end", r);
      if (start < 0) start += r;
      if (end < 0) end += r;
      start = std::clamp<int64_t>(start, 0, r);
      end = std::clamp<int64_t>(end, start, r);
      return IntTensor{{end - start}, {dims.begin() + start, dims.begin() + end}, TensorProto::INT64};
    }
    const IntTensor* a = value(n, 0);
    if (op == "ConstantOfShape") {
      const onnx::AttributeProto* fill = attribute(n, "value");
      if (a == nullptr || fill == nullptr || !fill->has_t()) return std::nullopt;  // the default is float zeros
      std::optional<IntTensor> v = from_proto(fill->t());
      if (!v || v->values.size() != 1 || !small_shape(a->values)) return std::nullopt;
      return IntTensor{a->values, std::vector<int64_t>(static_cast<size_t>(count(a->values)), v->values[0]), v->type};
    }
    if (a == nullptr) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(a->dims.size());
    if (op == "Identity") return *a;
    if (op == "Cast") {
      const int64_t to = attr_int(n, "to", 0);
      if (!integer_type(static_cast<int>(to))) return std::nullopt;
      IntTensor out = *a;
      out.type = static_cast<int>(to);
      if (to == TensorProto::BOOL) {
        for (int64_t& v : out.values) v = v != 0;
      } else if (to == TensorProto::INT32) {
        for (int64_t& v : out.values) v = static_cast<int32_t>(v);
      }
      return out;
    }
    if (op == "Unsqueeze" || op == "Squeeze") {
      std::optional<std::vector<int64_t>> ax = axes(n, 1);
      if (!ax) return std::nullopt;
      IntTensor out = *a;
      if (op == "Unsqueeze") {
        const int64_t r = rank + static_cast<int64_t>(ax->size());
        std::vector<bool> inserted(static_cast<size_t>(r), false);
        for (int64_t x : *ax) {
          std::optional<int64_t> k = axis_in(x, r);
          if (!k || inserted[*k]) return std::nullopt;
          inserted[*k] = true;
        }
        out.dims.clear();
        size_t next = 0;
        for (int64_t k = 0; k < r; ++k) out.dims.push_back(inserted[k] ? 1 : a->dims[next++]);
        return out;
      }
      std::vector<bool> removed(static_cast<size_t>(rank), ax->empty());
      for (int64_t x : *ax) {
        std::optional<int64_t> k = axis_in(x, rank);
        if (!k || a->dims[*k] != 1) return std::nullopt;
        removed[*k] = true;
      }
      out.dims.clear();
      for (int64_t k = 0; k < rank; ++k) {
        if (!(removed[k] && a->dims[k] == 1)) out.dims.push_back(a->dims[k]);
      }
      return out;
    }
    if (op == "Reshape") {
      const IntTensor* shape = value(n, 1);
      if (shape == nullptr) return std::nullopt;
      std::vector<int64_t> dims = shape->values;
      int64_t known_product = 1, infer = -1;
      for (size_t k = 0; k < dims.size(); ++k) {
        if (dims[k] == 0 && attr_int(n, "allowzero", 0) == 0) {
          if (k >= a->dims.size()) return std::nullopt;
          dims[k] = a->dims[k];
        }
        if (dims[k] == -1) {
          if (infer >= 0) return std::nullopt;
          infer = static_cast<int64_t>(k);
        } else if (dims[k] < 0) {
          return std::nullopt;
        } else {
          known_product *= dims[k];
        }
      }
      if (infer >= 0) {
        if (known_product == 0 || count(a->dims) % known_product != 0) return std::nullopt;
        dims[infer] = count(a->dims) / known_product;
      }
      if (!small_shape(dims) || count(dims) != count(a->dims)) return std::nullopt;
      return IntTensor{dims, a->values, a->type};
    }
    if (op == "Concat") {
      std::optional<int64_t> axis = axis_in(attr_int(n, "axis", 0), rank);
      if (!axis) return std::nullopt;
      std::vector<const IntTensor*> in;
      for (int s = 0; s < n.input_size(); ++s) {
        const IntTensor* t = value(n, s);
        if (t == nullptr || t->dims.size() != a->dims.size()) return std::nullopt;
        for (int64_t k = 0; k < rank; ++k) {
          if (k != *axis && t->dims[k] != a->dims[k]) return std::nullopt;
        }
        in.push_back(t);
      }
      IntTensor out{a->dims, {}, a->type};
      out.dims[*axis] = 0;
      for (const IntTensor* t : in) out.dims[*axis] += t->dims[*axis];
      if (!small_shape(out.dims)) return std::nullopt;
      const int64_t outer = count(std::vector<int64_t>(a->dims.begin(), a->dims.begin() + *axis));
      for (int64_t o = 0; o < outer; ++o) {
        for (const IntTensor* t : in) {
          const int64_t block = count(std::vector<int64_t>(t->dims.begin() + *axis, t->dims.end()));
          out.values.insert(out.values.end(), t->values.begin() + o * block, t->values.begin() + (o + 1) * block);
        }
      }
      return out;
    }
    if (op == "Gather") {
      const IntTensor* indices = value(n, 1);
      std::optional<int64_t> axis = axis_in(attr_int(n, "axis", 0), rank);
      if (indices == nullptr || !axis) return std::nullopt;
      IntTensor out{{}, {}, a->type};
      out.dims.assign(a->dims.begin(), a->dims.begin() + *axis);
      out.dims.insert(out.dims.end(), indices->dims.begin(), indices->dims.end());
      out.dims.insert(out.dims.end(), a->dims.begin() + *axis + 1, a->dims.end());
      if (!small_shape(out.dims)) return std::nullopt;
      const int64_t outer = count(std::vector<int64_t>(a->dims.begin(), a->dims.begin() + *axis));
      const int64_t inner = count(std::vector<int64_t>(a->dims.begin() + *axis + 1, a->dims.end()));
      const int64_t extent = a->dims[*axis];
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t index : indices->values) {
          if (index < 0) index += extent;
          if (index < 0 || index >= extent) return std::nullopt;
          const int64_t from = (o * extent + index) * inner;
          out.values.insert(out.values.end(), a->values.begin() + from, a->values.begin() + from + inner);
        }
      }
      return out;
    }
    if (op == "Slice") {
      const IntTensor *starts = value(n, 1), *ends = value(n, 2);
      if (starts == nullptr || ends == nullptr || starts->values.size() != ends->values.size()) return std::nullopt;
      std::vector<int64_t> ax, steps(starts->values.size(), 1);
      if (const IntTensor* t = value(n, 3)) {
        ax = t->values;
      } else if (n.input_size() > 3 && !n.input(3).empty()) {
        return std::nullopt;
      } else {
        for (size_t k = 0; k < starts->values.size(); ++k) ax.push_back(static_cast<int64_t>(k));
      }
      if (const IntTensor* t = value(n, 4)) {
        steps = t->values;
      } else if (n.input_size() > 4 && !n.input(4).empty()) {
        return std::nullopt;
      }
      if (ax.size() != starts->values.size() || steps.size() != ax.size()) return std::nullopt;
      std::vector<int64_t> begin(static_cast<size_t>(rank), 0), step(static_cast<size_t>(rank), 1), dims = a->dims;
      for (size_t k = 0; k < ax.size(); ++k) {
        std::optional<int64_t> axis = axis_in(ax[k], rank);
        if (!axis || steps[k] == 0) return std::nullopt;
        const int64_t d = a->dims[*axis];
        int64_t s = starts->values[k], e = ends->values[k];
        if (s < 0) s += d;
        if (e < 0) e += d;
        if (steps[k] > 0) {
          s = std::clamp<int64_t>(s, 0, d);
          e = std::clamp<int64_t>(e, 0, d);
          dims[*axis] = e > s ? (e - s + steps[k] - 1) / steps[k] : 0;
        } else {
          s = std::clamp<int64_t>(s, 0, d - 1);
          e = std::clamp<int64_t>(e, -1, d - 1);
          dims[*axis] = s > e ? (s - e - steps[k] - 1) / -steps[k] : 0;
        }
        begin[*axis] = s;
        step[*axis] = steps[k];
      }
      IntTensor out{dims, {}, a->type};
      for (int64_t flat = 0; flat < count(dims); ++flat) {
        int64_t rest = flat, index = 0, stride = 1;
        for (int64_t k = rank; k-- > 0;) {
          const int64_t c = rest % dims[k];
          rest /= dims[k];
          index += (begin[k] + c * step[k]) * stride;
          stride *= a->dims[k];
        }
        out.values.push_back(a->values[static_cast<size_t>(index)]);
      }
      return out;
    }
    if (op == "Transpose") {
      std::vector<int64_t> perm;
      if (const onnx::AttributeProto* at = attribute(n, "perm")) {
        perm.assign(at->ints().begin(), at->ints().end());
      } else {
        for (int64_t k = rank; k-- > 0;) perm.push_back(k);
      }
      if (static_cast<int64_t>(perm.size()) != rank) return std::nullopt;
      std::vector<bool> used(static_cast<size_t>(rank), false);
      for (int64_t& k : perm) {
        std::optional<int64_t> axis = axis_in(k, rank);
        if (!axis || used[*axis]) return std::nullopt;
        used[*axis] = true;
        k = *axis;
      }
      IntTensor out{{}, {}, a->type};
      for (int64_t k : perm) out.dims.push_back(a->dims[k]);
      std::vector<int64_t> stride(static_cast<size_t>(rank), 1);  // of the input
      for (int64_t k = rank - 1; k > 0; --k) stride[k - 1] = stride[k] * a->dims[k];
      for (int64_t flat = 0; flat < count(out.dims); ++flat) {
        int64_t rest = flat, index = 0;
        for (int64_t k = rank; k-- > 0;) {
          index += (rest % out.dims[k]) * stride[perm[k]];
          rest /= out.dims[k];
        }
        out.values.push_back(a->values[static_cast<size_t>(index)]);
      }
      return out;
    }
    if (op == "Range") {
      const IntTensor *limit = value(n, 1), *delta = value(n, 2);
      if (limit == nullptr || delta == nullptr || a->values.size() != 1 || limit->values.size() != 1 || delta->values.size() != 1 ||
          delta->values[0] == 0)
        return std::nullopt;
      // In 128 bits: a hostile file's bounds must not overflow.
      const __int128 start = a->values[0], stop = limit->values[0], d = delta->values[0];
      const __int128 span = (stop - start + d + (d > 0 ? -1 : 1)) / d;
      if (span > kMaxFoldedElements) return std::nullopt;
      const int64_t length = std::max<int64_t>(0, static_cast<int64_t>(span));
      IntTensor out{{length}, {}, a->type};
      for (int64_t k = 0; k < length; ++k) {
        const __int128 x = start + k * d;
        if (x < std::numeric_limits<int64_t>::min() || x > std::numeric_limits<int64_t>::max()) return std::nullopt;
        out.values.push_back(static_cast<int64_t>(x));
      }
      return out;
    }
    // Arithmetic that would overflow 64 bits (a hostile file's values) does not fold.
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    if (op == "Neg")
      return elementwise({a}, a->type, [](const std::vector<int64_t>& v) { return v[0] == kMin ? std::nullopt : std::optional<int64_t>(-v[0]); });
    if (op == "Abs")
      return elementwise({a}, a->type, [](const std::vector<int64_t>& v) {
        return v[0] == kMin ? std::nullopt : std::optional<int64_t>(v[0] < 0 ? -v[0] : v[0]);
      });
    if (op == "Not") return elementwise({a}, TensorProto::BOOL, [](const std::vector<int64_t>& v) { return std::optional<int64_t>(!v[0]); });
    const IntTensor* b = value(n, 1);
    if (b == nullptr) return std::nullopt;
    using Args = std::vector<int64_t>;
    // x op y, or nothing when it overflows (`overflows` follows the
    // __builtin_*_overflow convention: true on overflow, else *r set).
    auto checked = [&](bool (*overflows)(int64_t, int64_t, int64_t*)) {
      return elementwise({a, b}, a->type, [overflows](const Args& v) -> std::optional<int64_t> {
        int64_t r = 0;
        if (overflows(v[0], v[1], &r)) return std::nullopt;
        return r;
      });
    };
    if (op == "Add") return checked([](int64_t x, int64_t y, int64_t* r) { return __builtin_add_overflow(x, y, r); });
    if (op == "Sub") return checked([](int64_t x, int64_t y, int64_t* r) { return __builtin_sub_overflow(x, y, r); });
    if (op == "Mul") return checked([](int64_t x, int64_t y, int64_t* r) { return __builtin_mul_overflow(x, y, r); });
    if (op == "Div")
      return elementwise({a, b}, a->type, [](const Args& v) {
        return v[1] == 0 || (v[0] == kMin && v[1] == -1) ? std::nullopt : std::optional<int64_t>(v[0] / v[1]);
      });
    if (op == "Mod") {
      // fmod 0: the sign of the divisor (Python's %); 1: of the dividend (C's %).
      const bool c_style = attr_int(n, "fmod", 0) != 0;
      return elementwise({a, b}, a->type, [c_style](const Args& v) -> std::optional<int64_t> {
        if (v[1] == 0 || (v[0] == kMin && v[1] == -1)) return std::nullopt;
        const int64_t r = v[0] % v[1];
        return !c_style && r != 0 && ((r < 0) != (v[1] < 0)) ? r + v[1] : r;
      });
    }
    if (op == "Max" && n.input_size() == 2)
      return elementwise({a, b}, a->type, [](const Args& v) { return std::optional<int64_t>(std::max(v[0], v[1])); });
    if (op == "Min" && n.input_size() == 2)
      return elementwise({a, b}, a->type, [](const Args& v) { return std::optional<int64_t>(std::min(v[0], v[1])); });
    if (op == "Equal") return elementwise({a, b}, TensorProto::BOOL, [](const Args& v) { return std::optional<int64_t>(v[0] == v[1]); });
    if (op == "Less") return elementwise({a, b}, TensorProto::BOOL, [](const Args& v) { return std::optional<int64_t>(v[0] < v[1]); });
    if (op == "Greater") return elementwise({a, b}, TensorProto::BOOL, [](const Args& v) { return std::optional<int64_t>(v[0] > v[1]); });
    if (op == "Where") {
      const IntTensor* c = value(n, 2);
      if (c == nullptr) return std::nullopt;
      return elementwise({a, b, c}, b->type, [](const Args& v) { return std::optional<int64_t>(v[0] ? v[1] : v[2]); });
    }
    return std::nullopt;
  }

  onnx::GraphProto& g_;
  int64_t opset_ = 1;  // the default domain's
  std::unordered_map<std::string, IntTensor> known_;
  std::unordered_map<std::string, std::vector<int64_t>> shapes_;  // fixed shapes known before inference
  std::unordered_set<std::string> initializers_;
};

}  // namespace

FoldedConstants fold_onnx_constants(onnx::ModelProto& model) {
  try {
    return Folder(model).run();
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace devplace
