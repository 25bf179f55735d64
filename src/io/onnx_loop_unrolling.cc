// File: onnx_loop_unrolling.cc
// Unrolling a static ONNX Loop (see onnx_loop_unrolling.h).
#include "io/onnx_loop_unrolling.h"

#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

namespace devplace {

namespace {

using onnx::TensorProto;

TensorProto scalar_or_vector(const std::string& name, int type, std::vector<int64_t> values, bool vector) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  if (vector) t.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) {
    if (type == TensorProto::INT64) {
      t.add_int64_data(v);
    } else {
      t.add_int32_data(static_cast<int32_t>(v));  // BOOL is stored in int32_data
    }
  }
  return t;
}

std::string base_name(const onnx::NodeProto& loop) { return loop.name().empty() ? loop.output(0) : loop.name(); }

}  // namespace

bool loop_body_unrollable(const onnx::NodeProto& loop, const onnx::GraphProto& body) {
  // Loop inputs: M, cond, N carried values; body inputs: iteration, cond, N
  // carried; body outputs: cond, N carried, K scanned; Loop outputs: N + K.
  const int carried = loop.input_size() - 2;
  if (carried < 0 || body.input_size() != 2 + carried) return false;
  const int scanned = body.output_size() - 1 - carried;
  if (scanned < 0 || loop.output_size() != carried + scanned || loop.output_size() == 0) return false;
  const std::string& cond_in = body.input(1).name();
  const std::string& cond_out = body.output(0).name();
  bool stays_true = cond_out == cond_in;
  for (const onnx::NodeProto& n : body.node()) {
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g() || a.graphs_size() > 0) return false;  // a subgraph would read renamed values by their old names
    }
    if (n.output_size() == 1 && n.output(0) == cond_out)
      stays_true = n.op_type() == "Identity" && n.input_size() == 1 && n.input(0) == cond_in;
  }
  return stays_true;
}

void unroll_loop(const onnx::NodeProto& loop, const onnx::GraphProto& body, int64_t trips, int64_t opset,
                 onnx::GraphProto& graph, google::protobuf::RepeatedPtrField<onnx::NodeProto>& out,
                 std::unordered_set<std::string>& constants) {
  const std::string base = base_name(loop);
  const int carried = loop.input_size() - 2;
  const int scanned = body.output_size() - 1 - carried;

  // Names every iteration shares: the body's weights, the condition, the Unsqueeze axes.
  std::unordered_map<std::string, std::string> shared;
  for (const TensorProto& t : body.initializer()) {
    shared[t.name()] = base + "/" + t.name();
    TensorProto* copy = graph.add_initializer();
    *copy = t;
    copy->set_name(shared[t.name()]);
  }
  const std::string cond = base + "/cond";
  *graph.add_initializer() = scalar_or_vector(cond, TensorProto::BOOL, {1}, false);
  constants.insert(cond);
  shared[body.input(1).name()] = cond;
  const std::string axes = base + "/axes";
  if (scanned > 0 && opset >= 13) {
    *graph.add_initializer() = scalar_or_vector(axes, TensorProto::INT64, {0}, true);
    constants.insert(axes);
  }

  std::vector<std::string> values(static_cast<size_t>(carried));  // what the next iteration reads
  for (int j = 0; j < carried; ++j) values[j] = loop.input(2 + j);
  std::vector<std::vector<std::string>> stacked(static_cast<size_t>(scanned));
  for (int64_t t = 0; t < trips; ++t) {
    const std::string prefix = base + "/iter" + std::to_string(t) + "/";
    std::unordered_map<std::string, std::string> rename = shared;
    const std::string iteration = prefix + "iteration";
    *graph.add_initializer() = scalar_or_vector(iteration, TensorProto::INT64, {t}, false);
    constants.insert(iteration);
    rename[body.input(0).name()] = iteration;
    for (int j = 0; j < carried; ++j) rename[body.input(2 + j).name()] = values[j];
    for (const onnx::NodeProto& n : body.node()) {
      for (const std::string& o : n.output()) {
        if (!o.empty()) rename[o] = prefix + o;
      }
    }
    auto renamed = [&](const std::string& name) {
      auto it = rename.find(name);
      return it == rename.end() ? name : it->second;  // a value of the outer graph
    };
    for (const onnx::NodeProto& n : body.node()) {
      onnx::NodeProto* copy = out.Add();
      *copy = n;
      copy->set_name(prefix + (n.name().empty() ? n.op_type() : n.name()));
      for (std::string& name : *copy->mutable_input()) {
        if (!name.empty()) name = renamed(name);
      }
      for (std::string& name : *copy->mutable_output()) {
        if (!name.empty()) name = renamed(name);
      }
    }
    for (int j = 0; j < carried; ++j) values[j] = renamed(body.output(1 + j).name());
    for (int k = 0; k < scanned; ++k) {
      onnx::NodeProto* unsqueeze = out.Add();
      unsqueeze->set_op_type("Unsqueeze");
      unsqueeze->set_name(prefix + "scan" + std::to_string(k) + "/Unsqueeze");
      unsqueeze->add_input(renamed(body.output(1 + carried + k).name()));
      if (opset >= 13) {
        unsqueeze->add_input(axes);
      } else {
        onnx::AttributeProto* a = unsqueeze->add_attribute();
        a->set_name("axes");
        a->set_type(onnx::AttributeProto::INTS);
        a->add_ints(0);
      }
      unsqueeze->add_output(prefix + "scan" + std::to_string(k));
      stacked[k].push_back(unsqueeze->output(0));
    }
  }
  for (int j = 0; j < carried; ++j) {
    if (loop.output(j).empty()) continue;
    onnx::NodeProto* identity = out.Add();
    identity->set_op_type("Identity");
    identity->set_name(base + "/final" + std::to_string(j));
    identity->add_input(values[j]);
    identity->add_output(loop.output(j));
  }
  for (int k = 0; k < scanned; ++k) {
    if (loop.output(carried + k).empty()) continue;
    onnx::NodeProto* concat = out.Add();
    concat->set_op_type("Concat");
    concat->set_name(base + "/scan" + std::to_string(k));
    for (const std::string& v : stacked[k]) concat->add_input(v);
    concat->add_output(loop.output(carried + k));
    onnx::AttributeProto* a = concat->add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(0);
  }
}

}  // namespace devplace
