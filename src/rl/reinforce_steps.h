// File: reinforce_steps.h
// The steps of a training run: the one loop (run_training), and what it
// and its update sources (local_updates.h, distributed.cc) share: the
// options a run really uses, the per-update schedules, scoring samples,
// the advantages and loss, the warm start, and the finish (greedy decode
// and polish).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "common/status.h"
#include "group/grouping.h"
#include "place/placer.h"
#include "rl/placement_policy.h"
#include "rl/reinforce.h"
#include "rl/training_state.h"
#include "rl/update_source.h"

namespace devplace::rl {

// The given options with the context's recipe, flags and --polish applied
// (the polish capped at a quarter of an evaluation budget).
ReinforceOptions effective_options(const PlaceContext& ctx, const ReinforceOptions& given);

// torch's seed for update `it` (and, in a distributed run, controller `worker`):
// a resumed run draws what the uninterrupted one drew.
uint64_t update_seed(uint64_t seed_base, int64_t it, int64_t worker = 0);
double learning_rate_at(const ReinforceOptions& options, int64_t it);
double noise_at(const ReinforceOptions& options, int64_t it);
void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

// Scores the samples (rows of `devices`, one device per unit) with the
// context's evaluator and keeps the best in `state`. times[s] is the step
// time, or failed_step_time_s for a placement that does not fit or could
// not be measured (valid[s] false).
Status score_samples(const torch::Tensor& devices, const Grouping& units, const PlaceContext& ctx, const ReinforceOptions& options,
                     TrainState& state, std::vector<double>& times, std::vector<bool>& valid,
                     std::vector<double>* costs = nullptr);

// Keeps the `capacity` best distinct samples seen (by search cost) in
// state.elite_actions / elite_costs, best first.
void keep_elites(const torch::Tensor& actions, const std::vector<double>& costs, int64_t capacity, TrainState& state);
// The elites' decisions as a [E, A] tensor (undefined when there are none).
torch::Tensor elite_tensor(const TrainState& state);

struct UpdateStats {
  double mean_valid_time_s = 0;  // NaN when no sample fits
  int64_t num_valid = 0;
};
// The advantage of each sample of update `it` (higher is better), by
// options.advantage from sqrt(t); the moving average in `baseline` is
// updated here whatever the kind (the log shows it). With kMovingAverage
// or kLeaveOneOut, samples that do not fit get 0 once valid_only_after has
// passed.
std::vector<float> advantages(const std::vector<double>& times, const std::vector<bool>& valid, int64_t it,
                              const ReinforceOptions& options, double& baseline, UpdateStats& stats);
// The loss of one epoch on a batch: -mean over samples and decisions of
// min(r A, clip(r, 1 - clip, 1 + clip) A), r = exp(now.log_prob -
// sampled_log_prob) (with clip 0: -mean(A log p)), minus entropy_weight
// times the mean entropy per decision, plus floor_weight times how far
// that mean entropy falls below entropy_floor (a hinge; 0: off).
torch::Tensor policy_loss(const std::vector<float>& advantage, const PolicySample& now, const torch::Tensor& sampled_log_prob,
                          double clip, double entropy_weight, double entropy_floor = 0, double floor_weight = 0);
// The mean KL divergence per decision of the policy that gave `log_prob`
// from the one that gave `sampled_log_prob`, on the sampled decisions
// ([K, A] each): the mean of r - 1 - log r, r = exp(log_prob -
// sampled_log_prob), an estimate that is never negative (Schulman's k3).
double mean_kl(const torch::Tensor& sampled_log_prob, const torch::Tensor& log_prob);
// The entropy weight after this many evaluations.
double entropy_weight_at(const ReinforceOptions& options, int64_t evaluations);
// An error naming the update when the loss is NaN or infinite.
Status check_finite(const torch::Tensor& loss, std::string_view method, int64_t it);

// Supervised steps that imitate the best placement of the fast placers,
// with `optimizer` (see reinforce.cc for why the same one as REINFORCE).
Status warm_start(PlacementPolicy& policy, torch::optim::Optimizer& optimizer, const Grouping& units, const PlaceContext& ctx,
                  const ReinforceOptions& options, uint64_t seed_base, TrainState& state);

// Lets the greedy decode compete with the best placement so far; its step
// time and whether it fits go to `out` when given.
Status greedy_decode(PlacementPolicy& policy, const Grouping& units, const PlaceContext& ctx, const ReinforceOptions& options,
                     uint64_t seed_base, TrainState& state, FinalPolicy* out);
// The answer: local search from the best placement with `evaluations`
// evaluations and `seconds` (0: no time limit), or the best itself when
// evaluations is 0.
Result<Placement> polish(const Grouping& units, const PlaceContext& ctx, uint64_t seed_base, const TrainState& state,
                         int64_t evaluations, double seconds);

// The training loop both trainers run (on rank 0 when distributed): resume,
// warm start, then updates from `source` while the budget (--iterations,
// --evaluations with the polish's share and one evaluation kept, --budget)
// allows, with the learning-rate and entropy schedules, the log and the
// checkpoints; then the greedy decode and the polish. Ctrl-C saves a
// checkpoint and returns the best placement so far. `optimizer` and
// `state` are those `source` updates.
Result<Placement> run_training(PlacementPolicy& policy, torch::optim::Optimizer& optimizer, TrainState& state, UpdateSource& source,
                               const Grouping& units, const PlaceContext& ctx, const ReinforceOptions& options, uint64_t seed_base,
                               std::string_view method);

}  // namespace devplace::rl
