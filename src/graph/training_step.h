// File: training_step.h
// expand_training_step: turns a forward graph into the graph of one training
// step: forward ops, then backward ops (gradients flow along reversed edges),
// then one update op per parameter-holding op.
//
// Model (documented for users in docs/formats.md, "Training-step expansion"):
// - An op needs a gradient when it holds parameters or reads a floating-point
//   tensor that depends on parameters. Each such op X whose outputs receive a
//   gradient (or that is a sink, like the loss) gets a backward op "X/grad".
// - X/grad reads the gradient of each of X's outputs and the forward tensors
//   the backward of X's type needs (its inputs for matmul/conv-like ops, its
//   output for relu/sigmoid/tanh/softmax-like ops, none for add/reshape-like
//   ops); this is what keeps forward activations alive until the backward pass.
//   It writes one gradient per differentiable input, and the parameter gradient
//   if X holds parameters. A tensor read by several ops gets its gradients
//   summed (GradientAggregation). The gradient of a Gather's table is sparse
//   (the rows it read), as TensorFlow's IndexedSlices: its bytes are the
//   Gather's output bytes, not the table's.
// - Backward FLOPs: 2x forward for matmul/conv/gemm/recurrent/attention ops (a
//   gradient for the input and one for the weights), 1x for everything else.
//   Measured forward times scale by the same factor unless the op carries a
//   measured backward time.
// - One update op "X/update" per op with parameters, reading the parameter
//   gradient; the optimizer's state (Adam: 2 moments; momentum: 1) is resident
//   memory on the update op's device.
// - X, X/grad and X/update share a co-location group (X's group if it has one,
//   else one named after X), as TensorFlow's colocate_gradients_with_ops and
//   its variable/update co-location do.
#pragma once

#include <optional>
#include <string_view>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

enum class Optimizer : uint8_t { kSgd, kMomentum, kAdam };
std::optional<Optimizer> parse_optimizer(std::string_view name);  // "sgd", "momentum", "adam"
std::string_view optimizer_name(Optimizer optimizer);

// How the gradients of a tensor read by several ops are summed.
enum class GradientAggregation : uint8_t {
  // A running sum: each part is added to an accumulator as it is produced
  // (PyTorch's autograd accumulation; TensorFlow's ACCUMULATE_N), so only
  // one partial sum is alive. The default.
  kAccumulate,
  // One AddN over all parts, which waits for every part (TensorFlow's
  // default ADD_N): all parts are alive at once, e.g. every time step's
  // weight gradient of an unrolled RNN.
  kAddN,
};

struct TrainingOptions {
  Optimizer optimizer = Optimizer::kAdam;
  GradientAggregation aggregation = GradientAggregation::kAccumulate;
};

// Optimizer state per parameter byte: sgd 0, momentum 1, adam 2.
int optimizer_state_factor(Optimizer optimizer);
// FLOPs per parameter element of one update: sgd 2, momentum 4, adam 12.
double optimizer_flops_per_element(Optimizer optimizer);
// Backward FLOPs (and measured time) as a multiple of the forward op's.
double backward_cost_factor(std::string_view op_type);

// Fails if `forward` already has backward or update ops, holds no
// parameters, or if a generated name collides with an existing one.
Result<Graph> expand_training_step(const Graph& forward, const TrainingOptions& options);

}  // namespace devplace
