// File: placement_policy.h
// PlacementPolicy: what the REINFORCE trainer (reinforce.h) trains. A policy
// assigns a device to each unit of a grouping (the units are the groups
// the placement is made of) and says how likely its choices were, so that
// the trainer can push the likelihood of fast placements up. The rl
// placer's policy is the paper's seq2seq over the paper grouping; the
// hierarchical planner's is a grouper plus a seq2seq over its groups, over
// the co-location groups. Only rl/ includes torch headers.
#pragma once

#include <torch/torch.h>

namespace devplace::rl {

struct PolicySample {
  torch::Tensor devices;   // [K, U] int64: a device per unit
  torch::Tensor log_prob;  // [K]: log-probability of each sample, differentiable
  torch::Tensor entropy;   // [K]: entropy of the choices, summed over the decisions
};

class PlacementPolicy : public torch::nn::Module {
 public:
  // K samples from the policy. With greedy, each decision takes its most
  // likely choice (no noise). `noise_std` is the Gaussian noise added to
  // the logits early in training. Draws randomness from torch's global
  // generator, which the trainer seeds.
  virtual PolicySample sample(int64_t k, bool greedy, double noise_std) = 0;

  // Log-probability of the given unit devices [K, U] with every decision
  // forced to them (for imitation before REINFORCE), [K]. A policy that
  // cannot say (its decisions are not the unit devices) returns an
  // undefined tensor, and the trainer skips the warm start.
  virtual torch::Tensor log_prob_of(const torch::Tensor& devices) {
    (void)devices;
    return {};
  }
};

}  // namespace devplace::rl
