// File: builder.cc
// GraphBuilder: collects ops and tensors, then validates and freezes them.
#include "graph/builder.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/check.h"
#include "common/format.h"
#include "common/name_index.h"
#include "graph/validate.h"

namespace devplace {

int64_t dense_tensor_bytes(const std::vector<int64_t>& shape, DType dtype) {
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && elements > std::numeric_limits<int64_t>::max() / d) return -1;
    elements *= d;
  }
  const int64_t size = dtype_size_bytes(dtype);
  if (elements > std::numeric_limits<int64_t>::max() / size) return -1;  // the bytes overflow, not only the count
  return elements * size;
}

GraphBuilder::GraphBuilder(std::string graph_name) : name_(std::move(graph_name)) {}

void GraphBuilder::reserve(int ops, int tensors) {
  ops_.reserve(static_cast<size_t>(std::max(ops, 0)));
  tensors_.reserve(static_cast<size_t>(std::max(tensors, 0)));
}

OpId GraphBuilder::add_op(std::string name, std::string type) {
  Op op;
  op.name = std::move(name);
  op.type = std::move(type);
  ops_.push_back(std::move(op));
  return static_cast<OpId>(ops_.size() - 1);
}

OpId GraphBuilder::add_op(Op op) {
  op.inputs.clear();
  op.outputs.clear();
  ops_.push_back(std::move(op));
  return static_cast<OpId>(ops_.size() - 1);
}

OpId GraphBuilder::add_op_like(const Op& op) {
  ops_.push_back(op);
  ops_.back().inputs.clear();
  ops_.back().outputs.clear();
  return static_cast<OpId>(ops_.size() - 1);
}

TensorId GraphBuilder::add_output(OpId op, std::string name, std::vector<int64_t> shape, DType dtype,
                                  int64_t bytes) {
  DEVPLACE_CHECK(op >= 0 && op < num_ops());
  Tensor t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.bytes = bytes >= 0 ? bytes : dense_tensor_bytes(shape, dtype);
  t.shape = std::move(shape);
  t.producer = op;
  tensors_.push_back(std::move(t));
  const TensorId id = static_cast<TensorId>(tensors_.size() - 1);
  ops_[op].outputs.push_back(id);
  return id;
}

void GraphBuilder::add_input(OpId op, TensorId tensor) {
  DEVPLACE_CHECK(op >= 0 && op < num_ops());
  ops_[op].inputs.push_back(tensor);
}

Result<Graph> GraphBuilder::build() && {
  // The name is a label (often a file's or folder's): bytes that are not
  // UTF-8 become U+FFFD rather than fail the graph.
  name_ = valid_utf8_or_replaced(name_);
  DEVPLACE_RETURN_IF_ERROR(validate_graph_parts(ops_, tensors_));
  DEVPLACE_ASSIGN_OR_RETURN(std::vector<OpId> order, topological_order(ops_, tensors_));

  // Canonical tensor ids: in op order, then output order, whatever order
  // they were added in, so that equal graphs number tensors alike.
  // Readers add tensors in that order already: then nothing moves.
  bool in_order = true;
  TensorId next = 0;
  for (const Op& op : ops_) {
    for (TensorId t : op.outputs) in_order = in_order && t == next++;
  }
  std::vector<Tensor> tensors;
  if (in_order) {
    tensors = std::move(tensors_);
  } else {
    std::vector<TensorId> new_id(tensors_.size(), kNoId);
    tensors.reserve(tensors_.size());
    for (Op& op : ops_) {
      for (TensorId& t : op.outputs) {
        new_id[t] = static_cast<TensorId>(tensors.size());
        tensors.push_back(std::move(tensors_[t]));
        t = new_id[t];
      }
    }
    for (Op& op : ops_) {
      for (TensorId& t : op.inputs) t = new_id[t];
    }
  }

  Graph g;
  g.name_ = std::move(name_);
  for (const MeasuredOn& m : measured_on_) {
    if (!is_valid_utf8(m.model)) return invalid_input("measured_on: model: not valid UTF-8");
    if (m.peak_flops < 0 || m.memory_bandwidth_bytes_per_s < 0 || !std::isfinite(m.peak_flops) ||
        !std::isfinite(m.memory_bandwidth_bytes_per_s))
      return invalid_input("measured_on: expected positive peak_flops and memory_bandwidth_bytes_per_s");
  }
  g.measured_on_ = measured_on_;
  g.ops_ = std::move(ops_);
  g.tensors_ = std::move(tensors);
  const int n = g.num_ops();

  // Consumers in op id order, each op once even if it reads a tensor twice.
  for (OpId id = 0; id < n; ++id) {
    for (TensorId t : g.ops_[id].inputs) {
      std::vector<OpId>& consumers = g.tensors_[t].consumers;
      if (consumers.empty() || consumers.back() != id) consumers.push_back(id);
    }
  }
  for (const Tensor& t : g.tensors_) g.num_edges_ += static_cast<int64_t>(t.consumers.size());

  g.topo_order_ = std::move(order);
  g.topo_index_.assign(n, 0);
  for (int i = 0; i < n; ++i) g.topo_index_[g.topo_order_[i]] = i;

  // Keys point into g.ops_, which no longer changes.
  NameIndex group_by_name(static_cast<size_t>(n));
  g.group_of_.assign(n, kNoId);
  for (OpId id = 0; id < n; ++id) {
    const Op& op = g.ops_[id];
    const std::string& key = op.colocation_group.empty() ? op.name : op.colocation_group;
    auto [group, inserted] = group_by_name.insert(key, static_cast<GroupId>(g.group_names_.size()));
    if (inserted) {
      g.group_names_.push_back(key);
      g.group_ops_.emplace_back();
    }
    g.group_of_[id] = group;
    g.group_ops_[group].push_back(id);
  }
  return g;
}

}  // namespace devplace
