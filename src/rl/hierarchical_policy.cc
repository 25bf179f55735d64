// File: hierarchical_policy.cc
// The grouper and placer of the hierarchical planner (see
// hierarchical_policy.h).
#include "rl/hierarchical_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/check.h"
#include "place/device_choice.h"
#include "place/data_clusters.h"
#include "rl/features.h"

namespace devplace::rl {

HierarchicalPolicy::HierarchicalPolicy(const Problem& problem, const Grouping& units, const HierarchicalOptions& options)
    : problem_(problem), units_(units), num_units_(units.num_groups()), num_devices_(problem.num_devices()) {
  groups_ = options.groups > 0 ? options.groups : 256;
  groups_ = std::max<int64_t>(1, std::min(groups_, num_units_));
  const GroupFeatures f = group_features(problem, units);
  features_ = torch::from_blob(const_cast<float*>(f.values.data()), {num_units_, f.dim}, torch::kFloat).clone();
  disallowed_ = torch::zeros({num_units_, num_devices_});
  auto acc = disallowed_.accessor<float, 2>();
  for (int32_t u = 0; u < num_units_; ++u) {
    for (DeviceId d = 0; d < num_devices_; ++d) acc[u][d] = units.allows(u, d) ? 0.0f : 1.0f;
  }
  free_ = (disallowed_.sum(1, /*keepdim=*/true) < static_cast<double>(num_devices_ - 1)).to(torch::kFloat);
  prior_ = torch::zeros({num_units_, groups_});
  using Prior = HierarchicalOptions::Prior;
  if (options.prior == Prior::kOrder && options.locality_width > 0) {
    const torch::Tensor centre = (torch::arange(num_units_, torch::kFloat) + 0.5) * (static_cast<double>(groups_) / static_cast<double>(num_units_));
    const torch::Tensor group = torch::arange(groups_, torch::kFloat) + 0.5;
    const torch::Tensor z = (centre.unsqueeze(1) - group.unsqueeze(0)) / options.locality_width;
    prior_ = -0.5 * z * z;
    prior_settings_ = ";prior=order:" + std::to_string(options.locality_width);
  } else if (options.prior == Prior::kClusters && options.cluster_share > 0) {
    Result<std::vector<int32_t>> clusters = data_clusters(problem, units, static_cast<int>(groups_));
    DEVPLACE_CHECK(clusters.ok());  // fails only on graphs beyond 32-bit weights, which no policy here can hold
    // The bonus that gives a unit's own cluster this share of a fresh grouper's draws.
    const double share = std::min(options.cluster_share, 0.999);
    const float bonus = static_cast<float>(std::log(share / (1 - share) * static_cast<double>(groups_ - 1)));
    auto prior = prior_.accessor<float, 2>();
    if (groups_ > 1)
      for (int32_t u = 0; u < num_units_; ++u) prior[u][clusters.value()[u]] = bonus;
    prior_settings_ = ";prior=clusters:" + std::to_string(share);
  }
  grouper_in_ = register_module("grouper_in", torch::nn::Linear(f.dim, options.grouper_hidden));
  grouper_out_ = register_module("grouper_out", torch::nn::Linear(options.grouper_hidden, groups_));
  placer_ = register_module("placer", Seq2SeqNet(f.dim + 1, static_cast<int>(num_devices_), options.placer));
  neighbour_devices_ = options.placer.neighbour_devices;
  if (options.placer.load_input) {
    const PortableFeatures shares = portable_features(problem, units);
    const torch::Tensor work = torch::from_blob(const_cast<float*>(shares.work.data()), {num_units_, num_devices_}, torch::kFloat);
    const torch::Tensor memory = torch::from_blob(const_cast<float*>(shares.memory.data()), {num_units_, num_devices_}, torch::kFloat);
    unit_loads_ = torch::cat({work, memory}, 1).contiguous();  // [U, 2D]
  }
  if (neighbour_devices_) unit_pairs_ = exchanged_bytes(problem, units);
}

std::unique_ptr<std::vector<PlacedNeighbours>> HierarchicalPolicy::group_neighbours(const torch::Tensor& assignment) const {
  if (!neighbour_devices_) return nullptr;
  const torch::Tensor groups = assignment.contiguous();
  auto out = std::make_unique<std::vector<PlacedNeighbours>>();
  out->reserve(static_cast<size_t>(groups.size(0)));
  for (int64_t s = 0; s < groups.size(0); ++s)
    out->push_back(placed_neighbours(unit_pairs_, groups[s].data_ptr<int64_t>(), static_cast<int>(groups_)));
  return out;
}

std::pair<torch::Tensor, torch::Tensor> HierarchicalPolicy::group_inputs(const torch::Tensor& assignment) const {
  torch::NoGradGuard no_grad;
  // membership [K, N, U]: 1 where the unit is in the group.
  const torch::Tensor membership = torch::one_hot(assignment, groups_).to(torch::kFloat).transpose(1, 2);
  const torch::Tensor counts = membership.sum(2, /*keepdim=*/true);                     // [K, N, 1]
  const torch::Tensor mean = torch::matmul(membership, features_) / counts.clamp_min(1);  // [K, N, F]
  const torch::Tensor inputs = torch::cat({mean, counts / static_cast<double>(num_units_)}, 2);
  // Devices every unit of the group that has a choice may use (a unit
  // pinned to one device goes there whatever its group's device); where
  // none has a choice or they agree on none, those some unit may use.
  const torch::Tensor barred = torch::matmul(membership, disallowed_);                   // [K, N, D]: units that may not
  const torch::Tensor barred_free = torch::matmul(membership, disallowed_ * free_);      // [K, N, D]: free units that may not
  const torch::Tensor free_counts = torch::matmul(membership, free_);                    // [K, N, 1]
  const torch::Tensor all_allow = (barred_free == 0).logical_and(free_counts > 0);
  const torch::Tensor some_allow = barred < counts.clamp_min(1);  // an empty group: any device
  const torch::Tensor none = all_allow.any(2, /*keepdim=*/true).logical_not();
  return {inputs, torch::where(none, some_allow, all_allow)};
}

torch::Tensor HierarchicalPolicy::group_loads(const torch::Tensor& assignment) const {
  if (!unit_loads_.defined()) return {};
  torch::NoGradGuard no_grad;
  // A group's shares are its units' sums: [K, N, 2D] -> [K, N, D, 2].
  const torch::Tensor membership = torch::one_hot(assignment, groups_).to(torch::kFloat).transpose(1, 2);
  return torch::matmul(membership, unit_loads_).view({assignment.size(0), groups_, 2, num_devices_}).transpose(2, 3).contiguous();
}

torch::Tensor HierarchicalPolicy::unit_devices(const torch::Tensor& assignment, const torch::Tensor& group_devices) const {
  torch::Tensor devices = group_devices.gather(1, assignment).contiguous();  // [K, U]
  auto acc = devices.accessor<int64_t, 2>();
  for (int64_t s = 0; s < devices.size(0); ++s) {
    for (int32_t u = 0; u < num_units_; ++u) {
      const auto d = static_cast<DeviceId>(acc[s][u]);
      if (!units_.allows(u, d)) acc[s][u] = choose_allowed_device(problem_, units_, u, d);
    }
  }
  return devices;
}

PolicySample HierarchicalPolicy::sample(int64_t k, bool greedy, double noise_std) {
  const torch::Tensor logp = grouper_log_prob();  // [U, N]
  torch::Tensor assignment;  // [K, U]
  {
    torch::NoGradGuard no_grad;
    if (greedy) {
      assignment = logp.argmax(1).unsqueeze(0).expand({k, num_units_}).contiguous();
    } else {
      const torch::Tensor gumbel = -torch::log(-torch::log(torch::rand({k, num_units_, groups_}).clamp_(1e-10, 1.0 - 1e-7)));
      assignment = (logp.unsqueeze(0) + gumbel).argmax(2);
    }
  }
  auto [inputs, allowed] = group_inputs(assignment);
  const auto neighbours = group_neighbours(assignment);
  const PolicySample placed = placer_->forward(inputs, allowed, k, greedy, noise_std, {}, neighbours.get(), {}, group_loads(assignment));
  return combine(logp, assignment, placed);
}

PolicySample HierarchicalPolicy::evaluate(const torch::Tensor& actions) {
  const int64_t k = actions.size(0);
  const torch::Tensor assignment = actions.narrow(1, 0, num_units_).contiguous();
  const torch::Tensor group_devices = actions.narrow(1, num_units_, groups_).contiguous();
  auto [inputs, allowed] = group_inputs(assignment);
  // A forced device the group may not use (imitation) would have
  // probability 0: allow it. Sampled devices are allowed already.
  allowed = allowed.logical_or(torch::one_hot(group_devices, num_devices_).to(torch::kBool));
  const auto neighbours = group_neighbours(assignment);
  const PolicySample placed = placer_->forward(inputs, allowed, k, /*greedy=*/false, 0.0, group_devices, neighbours.get(), {}, group_loads(assignment));
  return combine(grouper_log_prob(), assignment, placed);
}

torch::Tensor HierarchicalPolicy::actions_for(const torch::Tensor& devices) {
  const int64_t k = devices.size(0);
  const int64_t per_device = std::max<int64_t>(1, groups_ / num_devices_);
  // The forced grouping: a device's units all go to the first group of its
  // block of N / devices groups (the grouper then has one class per device
  // to learn; REINFORCE spreads them later); the forced group devices: each
  // block's.
  torch::Tensor assignment = torch::zeros({k, num_units_}, torch::kLong);
  torch::Tensor group_devices = torch::zeros({k, groups_}, torch::kLong);
  auto dev = devices.accessor<int64_t, 2>();
  auto asg = assignment.accessor<int64_t, 2>();
  auto gd = group_devices.accessor<int64_t, 2>();
  for (int64_t s = 0; s < k; ++s) {
    for (int64_t n = 0; n < groups_; ++n) gd[s][n] = std::min<int64_t>(n / per_device, num_devices_ - 1);
    for (int32_t u = 0; u < num_units_; ++u) asg[s][u] = std::min<int64_t>(dev[s][u] * per_device, groups_ - 1);
  }
  return torch::cat({assignment, group_devices}, 1);
}

torch::Tensor HierarchicalPolicy::grouper_log_prob() {
  const torch::Tensor logits = grouper_out_->forward(torch::relu(grouper_in_->forward(features_))) + prior_;
  return torch::log_softmax(sampling_temperature_ == 1.0 ? logits : logits * static_cast<float>(1.0 / sampling_temperature_), 1);
}

PolicySample HierarchicalPolicy::combine(const torch::Tensor& logp, const torch::Tensor& assignment, const PolicySample& placed) const {
  const int64_t k = assignment.size(0);
  const torch::Tensor logp_k = logp.unsqueeze(0).expand({k, num_units_, groups_});
  const torch::Tensor group_log_prob = logp_k.gather(2, assignment.unsqueeze(2)).squeeze(2);   // [K, U]
  const torch::Tensor group_entropy = (-(logp.exp() * logp).sum(1)).unsqueeze(0).expand({k, num_units_});  // [K, U]
  torch::Tensor devices;
  {
    torch::NoGradGuard no_grad;
    devices = unit_devices(assignment, placed.devices);
  }
  return {devices, torch::cat({assignment, placed.actions}, 1), torch::cat({group_log_prob, placed.log_prob}, 1),
          torch::cat({group_entropy, placed.entropy}, 1)};
}

}  // namespace devplace::rl
