// File: placement_policy.h
// PlacementPolicy: what the REINFORCE trainer (reinforce.h) trains. A policy
// assigns a device to each unit of a grouping (the units are the groups
// the placement is made of) through a sequence of decisions, and says how
// likely each decision was, so that the trainer can push the likelihood of
// fast placements up. The rl placer's policy is the paper's seq2seq over
// the paper grouping, one decision per group; the hierarchical planner's is
// a grouper plus a seq2seq over its groups (a decision per unit, then one
// per group), over the co-location groups. Only rl/ includes torch headers.
#pragma once

#include <string>

#include <torch/torch.h>

namespace devplace::rl {

struct PolicySample {
  torch::Tensor devices;   // [K, U] int64: a device per unit (what is evaluated)
  torch::Tensor actions;   // [K, A] int64: every decision the policy made (what evaluate() takes back)
  torch::Tensor log_prob;  // [K, A]: log-probability of each decision, differentiable
  torch::Tensor entropy;   // [K, A]: entropy of each decision's distribution, differentiable
};

class PlacementPolicy : public torch::nn::Module {
 public:
  // K samples from the policy. With greedy, each decision takes its most
  // likely choice (no noise). `noise_std` is the Gaussian noise added to
  // the logits early in training (the paper recipe). Draws randomness from
  // torch's global generator, which the trainer seeds.
  virtual PolicySample sample(int64_t k, bool greedy, double noise_std) = 0;

  // The same decisions `actions` [K, A] (a sample's) re-scored under the
  // current parameters, without noise: their log-probabilities and
  // entropies, differentiable (PPO's later epochs reuse a batch so).
  virtual PolicySample evaluate(const torch::Tensor& actions) = 0;

  // Decisions [K, A] that yield the given unit devices [K, U], for
  // imitation before REINFORCE (the warm start); undefined when the policy
  // cannot say, and the trainer then skips the warm start.
  virtual torch::Tensor actions_for(const torch::Tensor& devices) = 0;

  // Log-probability [K] of the decisions that yield the given unit devices.
  torch::Tensor log_prob_of(const torch::Tensor& devices) {
    const torch::Tensor actions = actions_for(devices);
    if (!actions.defined()) return {};
    return evaluate(actions).log_prob.sum(1);
  }

  // Divides the logits of every decision by t when sampling and scoring
  // (t < 1: sharper, t > 1: flatter; the greedy decode does not change).
  // 1 as built; the trainer's cooling schedule (--cool-to) sets it before
  // each update. Not a parameter and not saved: a checkpoint's run sets it
  // again from the schedule.
  virtual void set_sampling_temperature(double t) = 0;

  // Settings that shape the decisions but are not parameters ("stickiness=0;
  // affinity=3"): a checkpoint made under others is not resumed.
  virtual std::string fixed_settings() const { return {}; }
};

}  // namespace devplace::rl
