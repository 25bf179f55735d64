// File: validate.cc
// Graph validation and topological order (see validate.h).
#include "graph/validate.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <string>
#include <utility>

#include "common/format.h"
#include "common/name_index.h"

namespace devplace {

namespace {

std::string op_place(const std::vector<Op>& ops, OpId id) {
  return "op '" + ops[id].name + "' (#" + std::to_string(id) + ")";
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool bad_cost(double v) { return !std::isfinite(v) || v < 0; }

}  // namespace

Status validate_graph_parts(const std::vector<Op>& ops, const std::vector<Tensor>& tensors) {
  if (ops.empty()) return invalid_input("graph has no ops");
  const int num_tensors = static_cast<int>(tensors.size());

  NameIndex op_names(ops.size());
  for (OpId id = 0; id < static_cast<OpId>(ops.size()); ++id) {
    const Op& op = ops[id];
    // Built only for an error: a large graph validates millions of fields.
    auto where = [&] { return op_place(ops, id); };
    if (op.name.empty()) return invalid_input("op #" + std::to_string(id) + ": name: expected a non-empty string");
    if (!op_names.insert(op.name, id).second) return invalid_input(where() + ": name: duplicate op name");
    // Names and labels go into JSON (placements, traces, the measurer's
    // hello), whose strings must be UTF-8.
    for (const auto& [field, text] : {std::pair<const char*, const std::string*>{"name", &op.name}, {"type", &op.type},
                                      {"colocation_group", &op.colocation_group}, {"pinned_device", &op.pinned_device}}) {
      if (!is_valid_utf8(*text)) return invalid_input(where() + ": " + field + ": not valid UTF-8");
    }
    if (bad_cost(op.flops)) return invalid_input(where() + ": flops: expected a non-negative number, got " + number(op.flops));
    if (op.parameter_bytes < 0)
      return invalid_input(where() + ": parameter_bytes: expected a non-negative integer, got " + std::to_string(op.parameter_bytes));
    if (op.optimizer_state_bytes < 0)
      return invalid_input(where() + ": optimizer_state_bytes: expected a non-negative integer, got " +
                           std::to_string(op.optimizer_state_bytes));
    if (op.memory_traffic_bytes < -1)
      return invalid_input(where() + ": memory_traffic_bytes: expected a non-negative integer, got " +
                           std::to_string(op.memory_traffic_bytes));
    for (int k = 0; k < kNumDeviceKinds; ++k) {
      // Negative means "not measured"; only NaN and infinity are malformed here.
      if (!std::isfinite(op.measured_time_s[k]) || !std::isfinite(op.measured_backward_time_s[k]))
        return invalid_input(where() + ": measured time for " + std::string(device_kind_name(static_cast<DeviceKind>(k))) +
                             ": expected a finite number");
    }
    if ((op.kernel_mask & kAllKernels) == 0) return invalid_input(where() + ": kernels: op has no kernel for any device kind");
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const TensorId t = op.inputs[i];
      if (t < 0 || t >= num_tensors)
        return invalid_input(where() + ": inputs[" + std::to_string(i) + "]: dangling edge to tensor #" + std::to_string(t));
    }
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      const TensorId t = op.outputs[i];
      if (t < 0 || t >= num_tensors || tensors[t].producer != id)
        return invalid_input(where() + ": outputs[" + std::to_string(i) + "]: tensor #" + std::to_string(t) +
                             " is not produced by this op");
    }
  }

  NameIndex tensor_names(tensors.size());
  for (TensorId id = 0; id < num_tensors; ++id) {
    const Tensor& t = tensors[id];
    auto where = [&] { return "tensor '" + t.name + "'"; };
    if (t.name.empty()) return invalid_input("tensor #" + std::to_string(id) + ": name: expected a non-empty string");
    if (!tensor_names.insert(t.name, id).second) return invalid_input(where() + ": name: duplicate tensor name");
    if (!is_valid_utf8(t.name)) return invalid_input(where() + ": name: not valid UTF-8");
    if (t.producer < 0 || t.producer >= static_cast<OpId>(ops.size()))
      return invalid_input(where() + ": has no producing op");
    for (int64_t d : t.shape) {
      if (d < 0) return invalid_input(where() + ": shape: expected non-negative dimensions, got " + std::to_string(d));
    }
    if (t.bytes < 0) return invalid_input(where() + ": bytes: expected a non-negative integer, got " + std::to_string(t.bytes));
  }
  return Status::ok_status();
}

Result<std::vector<OpId>> topological_order(const std::vector<Op>& ops, const std::vector<Tensor>& tensors) {
  const int n = static_cast<int>(ops.size());
  std::vector<int32_t> pending(n, 0);
  // Successor lists in one array (CSR): first[p]..first[p+1] are p's.
  std::vector<int32_t> first(n + 1, 0);
  for (OpId id = 0; id < n; ++id) {
    for (TensorId t : ops[id].inputs) ++first[tensors[t].producer + 1];
    pending[id] = static_cast<int32_t>(ops[id].inputs.size());
  }
  for (int i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<OpId> successors(first[n]);
  {
    std::vector<int32_t> next(first.begin(), first.end() - 1);
    for (OpId id = 0; id < n; ++id) {
      for (TensorId t : ops[id].inputs) successors[next[tensors[t].producer]++] = id;
    }
  }
  std::priority_queue<OpId, std::vector<OpId>, std::greater<>> ready;
  for (OpId id = 0; id < n; ++id) {
    if (pending[id] == 0) ready.push(id);
  }
  std::vector<OpId> order;
  order.reserve(n);
  while (!ready.empty()) {
    const OpId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (int32_t k = first[id]; k < first[id + 1]; ++k) {
      if (--pending[successors[k]] == 0) ready.push(successors[k]);
    }
  }
  if (static_cast<int>(order.size()) == n) return order;

  // Some ops never became ready: walk backwards along unfinished inputs from one
  // of them until an op repeats; the ops between the repeats form a cycle.
  OpId start = 0;
  while (pending[start] == 0) ++start;
  std::vector<int32_t> seen_at(n, -1);
  std::vector<OpId> path;
  OpId cur = start;
  while (seen_at[cur] < 0) {
    seen_at[cur] = static_cast<int32_t>(path.size());
    path.push_back(cur);
    OpId next = kNoId;
    for (TensorId t : ops[cur].inputs) {
      const OpId p = tensors[t].producer;
      if (pending[p] > 0) {
        next = p;
        break;
      }
    }
    cur = next;
  }
  std::vector<OpId> cycle(path.begin() + seen_at[cur], path.end());
  std::reverse(cycle.begin(), cycle.end());  // producer -> consumer direction
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());  // smallest id first
  std::string text = "cycle: ";
  for (OpId id : cycle) text += "'" + ops[id].name + "' -> ";
  text += "'" + ops[cycle.front()].name + "'";
  return invalid_input(text);
}

}  // namespace devplace
