// File: lstm_sequence.h
// A whole LSTM layer over a sequence as one autograd node, with its
// backward pass (backpropagation through time) written by hand. LibTorch's
// own LSTM on the CPU records a dozen autograd nodes per time step, and at
// a few hundred steps of a batch of 8 their bookkeeping, not arithmetic,
// is most of a policy update. Here a step is one matrix product plus a
// plain loop over the gates, forward and backward; the input projection
// and the weight gradient are one large product each, outside the loop.
//
// Gates are ordered input, forget, cell, output. Only rl/ includes torch.
#pragma once

#include <torch/torch.h>

namespace devplace::rl {

// projected: [B, T, 4H], the input projection x W_ih^T plus both biases,
// for every step; w_hh: [4H, H]. Returns the hidden states [B, T, H],
// starting from zero state; with reverse, the sequence runs from T-1 to 0
// (the backward direction of a bidirectional encoder). Differentiable in
// both arguments.
torch::Tensor lstm_sequence(const torch::Tensor& projected, const torch::Tensor& w_hh, bool reverse);

// One step without gradients, for step-by-step decoding: gates [B, 4H]
// (the projected input plus h W_hh^T) -> new (h, c) into `hidden` and
// `cell` [B, H], in place.
void lstm_step_inplace(const torch::Tensor& gates, torch::Tensor& hidden, torch::Tensor& cell);

}  // namespace devplace::rl
