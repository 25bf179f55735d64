// File: local_updates.cc
// One-process policy updates (see local_updates.h).
#include "rl/local_updates.h"

#include <algorithm>

#include "rl/reinforce_steps.h"

namespace devplace::rl {

LocalUpdates::LocalUpdates(PlacementPolicy& policy, torch::optim::Optimizer& optimizer, const Grouping& units, const PlaceContext& ctx,
                           const ReinforceOptions& options, TrainState& state, uint64_t seed_base, std::string_view method)
    : policy_(policy),
      optimizer_(optimizer),
      units_(units),
      ctx_(ctx),
      options_(options),
      state_(state),
      seed_base_(seed_base),
      method_(method) {}

int64_t LocalUpdates::samples_for(int64_t left) const {
  const int64_t k = options_.samples_per_update;
  return left >= k ? k : left >= 2 ? left : 0;
}

Result<UpdateOutcome> LocalUpdates::update(int64_t it, int64_t left, double entropy_weight, double /*temperature: set on policy_*/) {
  const int64_t n = samples_for(left);
  torch::manual_seed(update_seed(seed_base_, it));
  PolicySample sample = policy_.sample(n, /*greedy=*/false, noise_at(options_, it));
  DEVPLACE_RETURN_IF_ERROR(score_samples(sample.devices, units_, ctx_, options_, state_, times_, valid_, &costs_));
  keep_elites(sample.actions, costs_, options_.elites, state_);
  const torch::Tensor elites = options_.elite_weight > 0 ? elite_tensor(state_) : torch::Tensor();
  UpdateStats stats;
  const std::vector<float> advantage = advantages(times_, valid_, it, options_, state_.baseline, stats);
  const torch::Tensor sampled_log_prob = sample.log_prob.detach();
  UpdateOutcome outcome;
  outcome.samples = n;
  outcome.mean_valid_time_s = stats.mean_valid_time_s;
  outcome.entropy = sample.entropy.mean().item<double>();
  outcome.valid_fraction = static_cast<double>(stats.num_valid) / static_cast<double>(n);
  for (int64_t epoch = 0; epoch < std::max<int64_t>(1, options_.epochs); ++epoch) {
    // One step at least; the batch's later reuses yield to a spent time budget.
    if (epoch > 0 && should_stop()) break;
    // The first epoch's log-probabilities are the sample's own.
    const PolicySample now = epoch == 0 ? sample : policy_.evaluate(sample.actions);
    if (epoch > 0 && options_.target_kl > 0 && mean_kl(sampled_log_prob, now.log_prob) > options_.target_kl) break;
    torch::Tensor loss = policy_loss(advantage, now, sampled_log_prob, options_.clip, entropy_weight, options_.entropy_floor,
                                     options_.entropy_floor_weight);
    // Self-imitation: the policy's own best samples so far, once per batch.
    if (epoch == 0 && elites.defined()) loss = loss - options_.elite_weight * policy_.evaluate(elites).log_prob.mean();
    DEVPLACE_RETURN_IF_ERROR(check_finite(loss, method_, it));
    optimizer_.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(policy_.parameters(), options_.grad_clip);
    optimizer_.step();
  }
  return outcome;
}

}  // namespace devplace::rl
