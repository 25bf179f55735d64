// File: training_step.cc
// Training-step expansion (model in training_step.h).
#include "graph/training_step.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "graph/builder.h"
#include "graph/op_types.h"

namespace devplace {

namespace {

bool contains_any(const std::string& haystack, std::initializer_list<std::string_view> needles) {
  for (std::string_view n : needles) {
    if (haystack.find(n) != std::string::npos) return true;
  }
  return false;
}

// What the backward of an op type reads from the forward pass.
enum class Saved { kInputs, kOutputs, kNothing };

Saved saved_for_backward(std::string_view op_type) {
  const std::string t = lowercase(op_type);
  if (contains_any(t, {"relu", "sigmoid", "tanh", "softmax", "exp", "gelu", "elu"})) return Saved::kOutputs;
  static constexpr std::array<std::string_view, 16> kNothing = {
      "add", "sub", "addn", "identity", "reshape", "flatten", "concat", "concatv2", "split",
      "slice", "transpose", "squeeze", "unsqueeze", "view", "biasadd", "neg"};
  for (std::string_view n : kNothing) {
    if (t == n) return Saved::kNothing;
  }
  return Saved::kInputs;
}

}  // namespace

// TensorFlow's names for the update kernels.
std::string_view update_op_type(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd: return "ApplyGradientDescent";
    case Optimizer::kMomentum: return "ApplyMomentum";
    case Optimizer::kAdam: return "ApplyAdam";
  }
  return "Apply";
}

std::optional<Optimizer> parse_optimizer(std::string_view name) {
  if (name == "sgd") return Optimizer::kSgd;
  if (name == "momentum") return Optimizer::kMomentum;
  if (name == "adam") return Optimizer::kAdam;
  return std::nullopt;
}

std::string_view optimizer_name(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd: return "sgd";
    case Optimizer::kMomentum: return "momentum";
    case Optimizer::kAdam: return "adam";
  }
  return "?";
}

int optimizer_state_factor(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd: return 0;
    case Optimizer::kMomentum: return 1;
    case Optimizer::kAdam: return 2;
  }
  return 0;
}

double optimizer_flops_per_element(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd: return 2;        // w -= lr * g
    case Optimizer::kMomentum: return 4;   // v = m v + g; w -= lr v
    case Optimizer::kAdam: return 12;      // two moment updates, bias correction, sqrt, divide
  }
  return 2;
}

double backward_cost_factor(std::string_view op_type) { return is_contraction_op_type(op_type) ? 2.0 : 1.0; }

Result<Graph> expand_training_step(const Graph& fwd, const TrainingOptions& options) {
  if (fwd.has_backward()) return invalid_input("graph '" + fwd.name() + "' already holds a training step (backward or update ops)");
  if (fwd.total_parameter_bytes() == 0) return invalid_input("graph '" + fwd.name() + "' has no parameters (no op has parameter_bytes): nothing to train");
  const int n = fwd.num_ops();

  // needs_grad: holds parameters or reads a differentiable tensor.
  std::vector<char> op_needs_grad(n, 0);
  std::vector<char> tensor_needs_grad(fwd.num_tensors(), 0);
  for (OpId id : fwd.topo_order()) {
    const Op& op = fwd.op(id);
    bool needs = op.parameter_bytes > 0;
    for (TensorId t : op.inputs) needs = needs || tensor_needs_grad[t];
    op_needs_grad[id] = needs;
    for (TensorId t : op.outputs) tensor_needs_grad[t] = needs && dtype_is_floating(fwd.tensor(t).dtype);
  }

  // has_backward: decided in reverse topological order. An op gets a backward
  // op when it needs a gradient and a gradient reaches one of its outputs, or
  // it is a sink (nothing reads its outputs: the loss).
  std::vector<char> has_backward(n, 0);
  std::vector<int32_t> contributions(fwd.num_tensors(), 0);
  for (auto it = fwd.topo_order().rbegin(); it != fwd.topo_order().rend(); ++it) {
    const OpId id = *it;
    const Op& op = fwd.op(id);
    if (!op_needs_grad[id]) continue;
    bool gets_gradient = false;
    bool is_sink = true;
    for (TensorId t : op.outputs) {
      if (contributions[t] > 0) gets_gradient = true;
      if (!fwd.tensor(t).consumers.empty()) is_sink = false;
    }
    bool any_float_output = false;
    for (TensorId t : op.outputs) any_float_output = any_float_output || tensor_needs_grad[t];
    if (!(gets_gradient || (is_sink && (any_float_output || op.outputs.empty())))) continue;
    has_backward[id] = 1;
    for (TensorId t : op.inputs) {
      if (tensor_needs_grad[t]) ++contributions[t];
    }
  }

  GraphBuilder b(fwd.name());
  for (DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kGpu}) b.set_measured_on(kind, fwd.measured_on(kind));
  for (OpId id = 0; id < n; ++id) {
    const OpId copy = b.add_op_like(fwd.op(id));
    for (TensorId t : fwd.op(id).outputs) {
      const Tensor& ft = fwd.tensor(t);
      b.add_output(copy, ft.name, ft.shape, ft.dtype, ft.bytes);
    }
  }
  // Forward op ids are kept; tensor ids may be renumbered, so map them.
  std::vector<TensorId> copy_of(fwd.num_tensors(), kNoId);
  for (OpId id = 0; id < n; ++id) {
    const std::vector<TensorId>& outs = fwd.op(id).outputs;
    for (size_t i = 0; i < outs.size(); ++i) copy_of[outs[i]] = b.op(id).outputs[i];
  }
  for (OpId id = 0; id < n; ++id) {
    for (TensorId t : fwd.op(id).inputs) b.add_input(id, copy_of[t]);
  }

  // Gradient contributions of each forward tensor, collected as backward ops are made.
  std::vector<std::vector<TensorId>> grad_parts(fwd.num_tensors());
  std::vector<OpId> backward_of(n, kNoId);

  auto group_name = [&](OpId id) {
    const Op& op = fwd.op(id);
    return op.colocation_group.empty() ? op.name : op.colocation_group;
  };

  // Adds an op summing `inputs` (gradients of forward tensor t) and returns its output.
  auto add_sum = [&](TensorId t, const std::string& name, const std::vector<TensorId>& inputs) {
    const Tensor& ft = fwd.tensor(t);
    const OpId producer = ft.producer;
    const OpId sum = b.add_op(name, "AddN");
    Op& s = b.mutable_op(sum);
    s.phase = OpPhase::kBackward;
    s.forward_op = producer;
    s.colocation_group = group_name(producer);
    s.layer = fwd.op(producer).layer;
    s.kernel_mask = fwd.op(producer).kernel_mask;
    s.pinned_device = fwd.op(producer).pinned_device;
    const double elements = static_cast<double>(ft.bytes) / dtype_size_bytes(ft.dtype);
    s.flops = elements * static_cast<double>(inputs.size() - 1);
    int64_t bytes = 0;
    for (TensorId p : inputs) {
      b.add_input(sum, p);
      bytes = std::max(bytes, b.tensor(p).bytes);
    }
    return b.add_output(sum, name + ":0", ft.shape, ft.dtype, bytes);
  };

  // Returns the single gradient tensor of forward tensor t (summing parts if needed).
  auto gradient_of = [&](TensorId t) -> TensorId {
    std::vector<TensorId>& parts = grad_parts[t];
    if (parts.size() <= 1) return parts.empty() ? kNoId : parts.front();
    const std::string base = fwd.tensor(t).name + "/grad_sum";
    TensorId out = kNoId;
    if (options.aggregation == GradientAggregation::kAddN) {
      out = add_sum(t, base, parts);
    } else {
      out = parts.front();
      for (size_t k = 1; k < parts.size(); ++k) out = add_sum(t, base + (k + 1 == parts.size() ? "" : "_" + std::to_string(k)), {out, parts[k]});
    }
    parts.assign(1, out);
    return out;
  };

  const std::vector<OpId>& topo = fwd.topo_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const OpId id = *it;
    if (!has_backward[id]) continue;
    const Op& f = fwd.op(id);
    const OpId bw = b.add_op(f.name + "/grad", f.type + "Grad");
    backward_of[id] = bw;
    {
      Op& g = b.mutable_op(bw);
      const double factor = backward_cost_factor(f.type);
      g.phase = OpPhase::kBackward;
      g.forward_op = id;
      g.colocation_group = group_name(id);
      g.layer = f.layer;
      g.kernel_mask = f.kernel_mask;
      g.pinned_device = f.pinned_device;
      g.flops = f.flops * factor;
      for (int k = 0; k < kNumDeviceKinds; ++k) {
        if (f.measured_backward_time_s[k] >= 0) {
          g.measured_time_s[k] = f.measured_backward_time_s[k];
        } else if (f.measured_time_s[k] >= 0) {
          g.measured_time_s[k] = f.measured_time_s[k] * factor;
        }
      }
    }
    for (TensorId t : f.outputs) {
      const TensorId grad = gradient_of(t);
      if (grad != kNoId) b.add_input(bw, grad);
    }
    switch (saved_for_backward(f.type)) {
      case Saved::kInputs:
        for (TensorId t : f.inputs) b.add_input(bw, copy_of[t]);
        break;
      case Saved::kOutputs:
        for (TensorId t : f.outputs) b.add_input(bw, copy_of[t]);
        break;
      case Saved::kNothing:
        break;
    }
    int k = 0;
    const bool sparse_table_gradient = is_gather_op_type(f.type);
    for (size_t i = 0; i < f.inputs.size(); ++i) {
      const TensorId t = f.inputs[i];
      if (!tensor_needs_grad[t]) continue;
      const Tensor& ft = fwd.tensor(t);
      int64_t bytes = ft.bytes;
      if (sparse_table_gradient && i == 0 && !f.outputs.empty()) bytes = std::min(bytes, fwd.tensor(f.outputs[0]).bytes);
      const TensorId g = b.add_output(bw, f.name + "/grad:" + std::to_string(k++), ft.shape, ft.dtype, bytes);
      grad_parts[t].push_back(g);
    }
    if (f.parameter_bytes > 0) {
      const TensorId pg = b.add_output(bw, f.name + "/grad:params", {}, DType::kFloat32, f.parameter_bytes);
      const OpId up = b.add_op(f.name + "/update", std::string(update_op_type(options.optimizer)));
      Op& u = b.mutable_op(up);
      u.phase = OpPhase::kUpdate;
      u.forward_op = id;
      u.colocation_group = group_name(id);
      u.layer = f.layer;
      u.kernel_mask = f.kernel_mask;
      u.pinned_device = f.pinned_device;
      // Parameters are float32: one element per 4 bytes.
      const double elements = static_cast<double>(f.parameter_bytes) / 4.0;
      u.flops = elements * optimizer_flops_per_element(options.optimizer);
      u.optimizer_state_bytes = f.parameter_bytes * optimizer_state_factor(options.optimizer);
      // Reads gradient, weights and state; writes weights and state.
      u.memory_traffic_bytes = 3 * f.parameter_bytes + 2 * u.optimizer_state_bytes;
      b.add_input(up, pg);
    }
  }

  Result<Graph> g = std::move(b).build();
  if (!g.ok()) return g.error().with_prefix("training-step expansion of '" + fwd.name() + "'");
  return g;
}

}  // namespace devplace
