// File: hierarchical_policy.h
// The policy of "A Hierarchical Model for Device Placement" (Mirhoseini et
// al., ICLR 2018): a grouper that learns the groups and a placer that puts
// them on devices, trained together by one REINFORCE signal.
// - Units: the graph's co-location groups (an op with its backward and
//   update ops), so a placement always honours co-location.
// - Grouper: a feed-forward network, unit features -> 64 (ReLU) -> a
//   softmax over N groups; each unit draws its group.
// - Placer: the seq2seq network of policy.h over the N groups in index
//   order; a group's input is the mean of its units' features plus its size
//   (count / units). These inputs depend on the drawn grouping, so each of
//   the K samples has its own sequence, and the grouper learns only through
//   its log-probability, as in the paper.
// - A group may use the devices all its units that have a choice (more
//   than one allowed device) may use: a unit pinned to the CPU does not pin
//   the group it was drawn into. When none has a choice or they agree on
//   none, it may use any device one of its units may use. A unit that may
//   not use its group's device goes to its own allowed device of the same
//   kind (place/device_choice.h): a fixed rule, so the log-probability is
//   still that of the policy's decisions.
// - log p(placement) = log p(grouping) + log p(group devices).
// Only rl/ includes torch headers.
#pragma once

#include <memory>
#include <vector>

#include <torch/torch.h>

#include "group/grouping.h"
#include "rl/placement_policy.h"
#include "rl/policy.h"
#include "sim/problem.h"

namespace devplace::rl {

struct HierarchicalOptions {
  int groups = 0;          // N; 0: 256, never more than the units
  int grouper_hidden = 64;
  // A fixed prior on the grouper's logits, so that a young grouper draws
  // groups of units that belong together instead of scattering each group
  // over the graph:
  // - kClusters: unit u leans to group c(u), its cluster among N clusters
  //   of units that exchange much data (place/data_clusters.h): a fresh
  //   grouper draws it with probability cluster_share (at most 0.999);
  // - kOrder: unit u (of U, in topological order) leans to group u N / U,
  //   a Gaussian of locality_width groups;
  // - kNone: the paper's grouper.
  enum class Prior { kNone, kOrder, kClusters };
  Prior prior = Prior::kClusters;
  double locality_width = 2.0;
  double cluster_share = 0.99;
  PolicyOptions placer;
};

class HierarchicalPolicy : public PlacementPolicy {
 public:
  // `units` is the co-location grouping of `problem`.
  HierarchicalPolicy(const Problem& problem, const Grouping& units, const HierarchicalOptions& options);

  // The actions are [K, U + N]: each unit's group, then each group's device.
  PolicySample sample(int64_t k, bool greedy, double noise_std) override;
  PolicySample evaluate(const torch::Tensor& actions) override;
  // Imitation of a unit placement: each device's units go to the first of
  // a block of N / devices groups, placed on that device.
  torch::Tensor actions_for(const torch::Tensor& devices) override;

  int num_groups() const { return static_cast<int>(groups_); }
  std::string fixed_settings() const override { return placer_->fixed_settings() + prior_settings_; }
  // The grouper's logits and the placer's, both.
  void set_sampling_temperature(double t) override {
    sampling_temperature_ = t;
    placer_->set_sampling_temperature(t);
  }

 private:
  // The grouper's log-probabilities [U, N].
  torch::Tensor grouper_log_prob();
  // A sample from the grouper's log-probabilities, K groupings [K, U] and
  // the placer's sample over them.
  PolicySample combine(const torch::Tensor& logp, const torch::Tensor& assignment, const PolicySample& placed) const;
  // Group inputs and allowed devices for K groupings [K, U].
  std::pair<torch::Tensor, torch::Tensor> group_inputs(const torch::Tensor& assignment) const;
  // With the placer's neighbour_devices: each sample's groups' placed
  // neighbours (features.h) for K groupings [K, U]; else null.
  std::unique_ptr<std::vector<PlacedNeighbours>> group_neighbours(const torch::Tensor& assignment) const;
  // With placer.load_input: each group's work and memory shares per device, [K, N, D, 2]; else undefined.
  torch::Tensor group_loads(const torch::Tensor& assignment) const;
  // Unit devices [K, U] from group devices [K, N], honouring each unit's
  // allowed devices.
  torch::Tensor unit_devices(const torch::Tensor& assignment, const torch::Tensor& group_devices) const;

  const Problem& problem_;
  const Grouping& units_;
  int64_t num_units_, num_devices_, groups_;
  torch::Tensor features_;   // [U, F]
  torch::Tensor prior_;      // [U, N]: the locality prior on the grouper's logits (zeros without one)
  torch::Tensor disallowed_; // [U, D] float, 1 where a unit may not use the device
  torch::Tensor free_;       // [U, 1] float, 1 where a unit may use more than one device
  std::string prior_settings_;  // the prior, for the checkpoint's check
  double sampling_temperature_ = 1.0;
  bool neighbour_devices_ = false;
  std::vector<ExchangedBytes> unit_pairs_;  // with neighbour_devices: the bytes pairs of units exchange
  torch::Tensor unit_loads_;  // with placer.load_input: each unit's work shares, then memory shares [U, 2D]
  torch::nn::Linear grouper_in_{nullptr}, grouper_out_{nullptr};
  Seq2SeqNet placer_{nullptr};
};

}  // namespace devplace::rl
