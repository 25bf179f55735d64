// File: reinforce.cc
// The REINFORCE training loop of the learned placers (see reinforce.h).
#include "rl/reinforce.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "common/check.h"
#include "common/file_io.h"
#include "common/interrupt.h"
#include "place/local_search.h"
#include "place/search.h"
#include "rl/distributed.h"
#include "rl/reinforce_steps.h"
#include "rl/training_run.h"
#include "rl/training_state.h"
#include "sim/simulator.h"

namespace devplace::rl {

namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

}  // namespace

ReinforceOptions paper_recipe(ReinforceOptions o) {
  o.learning_rate = 0.01;
  o.batch_baseline = false;
  o.initial_noise = 0.5;
  o.warm_start = WarmStart::kNone;
  o.polish_evaluations = 0;
  return o;
}

ReinforceOptions effective_options(const PlaceContext& ctx, const ReinforceOptions& given) {
  ReinforceOptions options = ctx.training.paper_recipe ? paper_recipe(given) : given;
  if (ctx.training.polish_evaluations >= 0) options.polish_evaluations = ctx.training.polish_evaluations;
  if (ctx.training.warm_start != WarmStart::kDefault) options.warm_start = ctx.training.warm_start;
  if (options.warm_start == WarmStart::kDefault) options.warm_start = WarmStart::kSearch;
  if (ctx.training.learning_rate > 0) options.learning_rate = ctx.training.learning_rate;
  return options;
}

uint64_t update_seed(uint64_t seed_base, int64_t it, int64_t worker) {
  return (seed_base + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(it + 1) + 0xc2b2ae3d27d4eb4fULL * static_cast<uint64_t>(worker)) &
         0x7fffffffffffffffULL;
}

double learning_rate_at(const ReinforceOptions& options, int64_t it) {
  const int64_t decays = it < options.lr_decay_start ? 0 : 1 + (it - options.lr_decay_start) / std::max<int64_t>(1, options.lr_decay_every);
  return options.learning_rate * std::pow(options.lr_decay, static_cast<double>(decays));
}

// The noise schedule depends on the update alone, so that a resumed run
// with more updates continues it exactly.
double noise_at(const ReinforceOptions& options, int64_t it) {
  return it < options.noise_updates
             ? options.initial_noise * (1.0 - static_cast<double>(it) / static_cast<double>(options.noise_updates))
             : 0.0;
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
}

Status score_samples(const torch::Tensor& devices, const Grouping& units, const PlaceContext& ctx, const ReinforceOptions& options,
                     TrainState& state, std::vector<double>& times, std::vector<bool>& valid) {
  const int nu = units.num_groups();
  const int64_t n = devices.size(0);
  const auto acc = devices.accessor<int64_t, 2>();
  std::vector<std::vector<DeviceId>> rows(n, std::vector<DeviceId>(nu));
  std::vector<Placement> placements;
  placements.reserve(n);
  for (int64_t s = 0; s < n; ++s) {
    for (int32_t u = 0; u < nu; ++u) rows[s][u] = static_cast<DeviceId>(acc[s][u]);
    placements.push_back(units.to_placement(rows[s]));
  }
  std::vector<Result<Evaluation>> results = ctx.evaluator.evaluate_all(placements, std::max(1, ctx.training.threads));
  times.assign(n, 0);
  valid.assign(n, false);
  for (int64_t s = 0; s < n; ++s) {
    if (!results[s].ok()) return results[s].error();
    const Evaluation& e = results[s].value();
    const double cost = search_cost_s(ctx.problem, e);
    if (cost < state.best_cost) {
      state.best_cost = cost;
      state.best = rows[s];
    }
    valid[s] = !e.oom && !e.failed;
    times[s] = valid[s] ? e.step_time_s : options.failed_step_time_s;
  }
  return Status::ok_status();
}

std::vector<float> advantages(const std::vector<double>& times, const std::vector<bool>& valid, int64_t it,
                              const ReinforceOptions& options, double& baseline, UpdateStats& stats) {
  const size_t k = times.size();
  std::vector<float> rewards(k);
  double mean_reward = 0, valid_time = 0;
  stats.num_valid = 0;
  for (size_t s = 0; s < k; ++s) {
    rewards[s] = static_cast<float>(std::sqrt(times[s]));
    mean_reward += rewards[s];
    if (valid[s]) {
      valid_time += times[s];
      ++stats.num_valid;
    }
  }
  mean_reward /= static_cast<double>(k);
  stats.mean_valid_time_s = stats.num_valid > 0 ? valid_time / static_cast<double>(stats.num_valid) : std::numeric_limits<double>::quiet_NaN();
  baseline = it == 0 ? mean_reward : options.baseline_decay * baseline + (1 - options.baseline_decay) * mean_reward;
  // After valid_only_after updates, samples that do not fit teach nothing
  // (when some sample fits).
  std::vector<float> weight(k, 1.0f);
  if (options.valid_only_after >= 0 && it >= options.valid_only_after && stats.num_valid > 0) {
    for (size_t s = 0; s < k; ++s) weight[s] = valid[s] ? 1.0f : 0.0f;
  }
  double sum_weighted = 0, sum_weight = 0;
  for (size_t s = 0; s < k; ++s) {
    sum_weighted += weight[s] * rewards[s];
    sum_weight += weight[s];
  }
  std::vector<float> out(k);
  for (size_t s = 0; s < k; ++s) {
    // Leave-one-out mean of the other samples that count.
    const double others = sum_weight - weight[s] > 0 ? (sum_weighted - weight[s] * rewards[s]) / (sum_weight - weight[s]) : rewards[s];
    const double b = options.batch_baseline ? others : baseline;
    out[s] = weight[s] * static_cast<float>(rewards[s] - b);
  }
  return out;
}

torch::Tensor reinforce_loss(const std::vector<float>& advantage, const PolicySample& sample, int num_units) {
  const int64_t k = static_cast<int64_t>(advantage.size());
  return (torch::tensor(advantage) * sample.log_prob).sum() / static_cast<double>(k * std::max(1, num_units));
}

namespace {

// The placement the warm start imitates, per unit.
Result<ScoredDevices> warm_start_target(const Grouping& units, const PlaceContext& ctx, const ReinforceOptions& options, Rng& rng) {
  if (options.warm_start == WarmStart::kFast) return best_fast_placement(PlaceContext{ctx.problem, units, ctx.evaluator, Budget{}, rng});
  // local-search's own evaluations, capped by a quarter of an evaluation
  // budget and a share of a time budget.
  Budget budget{ctx.budget.seconds * options.warm_start_time_share, options.warm_start_search_evaluations};
  if (ctx.training.iterations <= 0 && ctx.budget.evaluations > 0)
    budget.evaluations = std::max<int64_t>(1, std::min(budget.evaluations, ctx.budget.evaluations / 4));
  const Grouping& grouping = options.warm_start_grouping != nullptr ? *options.warm_start_grouping : units;
  // Thousands of measured runs would cost more than the training: with a
  // measurer the search runs on the simulator, and only its answer is
  // measured.
  std::optional<Simulator> simulator;
  if (ctx.evaluator.measures()) simulator.emplace(ctx.problem);
  Evaluator& search_evaluator = simulator ? static_cast<Evaluator&>(*simulator) : ctx.evaluator;
  Rng search_rng = options.warm_start_rng != nullptr ? *options.warm_start_rng : Rng(rng.next_u64());
  DEVPLACE_ASSIGN_OR_RETURN(Placement placement,
                            LocalSearchPlacer().place(PlaceContext{ctx.problem, grouping, search_evaluator, budget, search_rng}));
  ScoredDevices target{units.device_of_groups(placement), 0.0};
  DEVPLACE_ASSIGN_OR_RETURN(Evaluation e, ctx.evaluator.evaluate(units.to_placement(target.devices)));
  target.cost = search_cost_s(ctx.problem, e);
  return target;
}

}  // namespace

Status warm_start(PlacementPolicy& policy, torch::optim::Optimizer& optimizer, const Grouping& units, const PlaceContext& ctx,
                  const ReinforceOptions& options, uint64_t seed_base, TrainState& state) {
  if (options.warm_start == WarmStart::kNone || options.warm_start_steps <= 0 || state.iteration != 0) return Status::ok_status();
  // Randomness from the seed alone, not ctx.rng, so that a resumed run
  // (which skips this) draws the same later.
  Rng warm_rng(seed_base ^ 0x5741524d53544152ULL);
  DEVPLACE_ASSIGN_OR_RETURN(ScoredDevices target, warm_start_target(units, ctx, options, warm_rng));
  if (target.cost < state.best_cost) {
    state.best_cost = target.cost;
    state.best = target.devices;
  }
  std::vector<int64_t> row(target.devices.begin(), target.devices.end());
  const torch::Tensor forced = torch::tensor(row, torch::kLong).unsqueeze(0);
  // The same optimizer as REINFORCE: its second moments then start at the
  // scale of per-decision gradients, which the REINFORCE loss (divided
  // by the decision count too) keeps, so the first REINFORCE steps do not
  // jump (a fresh Adam's first step moves every weight by the full
  // learning rate, enough to undo the imitation).
  set_learning_rate(optimizer, options.warm_start_learning_rate);
  const int nu = units.num_groups();
  for (int64_t step = 0; step < options.warm_start_steps; ++step) {
    const torch::Tensor lp = policy.log_prob_of(forced);
    if (!lp.defined()) break;
    const torch::Tensor loss = -lp.mean() / static_cast<double>(nu);
    if (std::exp(-loss.item<double>()) >= options.warm_start_confidence) break;
    optimizer.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(policy.parameters(), options.grad_clip);
    optimizer.step();
  }
  return Status::ok_status();
}

Status greedy_decode(PlacementPolicy& policy, const Grouping& units, const PlaceContext& ctx, const ReinforceOptions& options,
                     uint64_t seed_base, TrainState& state) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(seed_base & 0x7fffffffffffffffULL);
  PolicySample greedy = policy.sample(1, /*greedy=*/true, 0.0);
  std::vector<double> times;
  std::vector<bool> valid;
  return score_samples(greedy.devices, units, ctx, options, state, times, valid);
}

Result<Placement> polish(const Grouping& units, const PlaceContext& ctx, uint64_t seed_base, const TrainState& state,
                         int64_t evaluations, double seconds) {
  DEVPLACE_CHECK(!state.best.empty());
  if (evaluations <= 0) return units.to_placement(state.best);
  Rng polish_rng(seed_base ^ 0x504f4c495348ULL);
  const PlaceContext polish_ctx{ctx.problem, units, ctx.evaluator, Budget{seconds, evaluations}, polish_rng};
  const SearchClock polish_clock(polish_ctx.budget, ctx.evaluator, evaluations);
  return local_search_from(polish_ctx, state.best, polish_clock);
}

Result<Placement> train_reinforce(PlacementPolicy& policy, const Grouping& units, const PlaceContext& ctx,
                                  const ReinforceOptions& given, std::string_view method) {
  if (ctx.training.distributed != Distribution::kNone) return train_distributed(policy, units, ctx, given, method);
  ReinforceOptions options = effective_options(ctx, given);
  const int nu = units.num_groups();
  const int64_t k = options.samples_per_update;
  const TrainingRunOptions& training = ctx.training;
  use_one_thread();
  const uint64_t seed_base = ctx.rng.next_u64();
  // What draws before the first update draws from the seed.
  torch::manual_seed(seed_base & 0x7fffffffffffffffULL);

  // The budget: --iterations, else the evaluations (K per update, with a
  // quarter at most kept for the polish, and the greedy decode), else the
  // default; a time budget alone trains until the clock runs out.
  const int64_t start_evaluations = ctx.evaluator.num_evaluations();
  auto used = [&] { return ctx.evaluator.num_evaluations() - start_evaluations; };
  const int64_t eval_budget = training.iterations > 0 ? 0 : ctx.budget.evaluations;
  if (eval_budget > 0) options.polish_evaluations = std::min(options.polish_evaluations, eval_budget / 4);
  const int64_t iterations = training.iterations > 0 ? training.iterations
                             : eval_budget > 0 || ctx.budget.seconds > 0 ? kUnbounded
                                                                         : options.default_iterations;
  auto more_updates = [&](int64_t it) {
    if (it >= iterations) return false;
    if (eval_budget > 0 && used() + k + 1 + options.polish_evaluations > eval_budget) return it == 0;  // one update at least
    return true;
  };
  // With a time budget, the polish keeps a share of it.
  const double train_seconds = ctx.budget.seconds * (options.polish_evaluations > 0 ? 1.0 - options.polish_time_share : 1.0);
  const SearchClock clock(Budget{train_seconds, 0}, ctx.evaluator, 0);
  auto fraction_done = [&](int64_t it) {
    double f = iterations == kUnbounded ? 0.0 : static_cast<double>(it) / static_cast<double>(iterations);
    if (eval_budget > 0) f = std::max(f, static_cast<double>(used()) / static_cast<double>(eval_budget - options.polish_evaluations));
    if (ctx.budget.seconds > 0) f = std::max(f, clock.progress());
    return std::min(1.0, f);
  };

  torch::optim::Adam optimizer(policy.parameters(), torch::optim::AdamOptions(options.learning_rate));
  TrainState state;
  TrainingRun run(policy, optimizer, state, Fingerprint{nu, ctx.problem.num_devices(), k, name_hash(method)}, training, method,
                  std::string(method));
  DEVPLACE_RETURN_IF_ERROR(run.open());
  DEVPLACE_RETURN_IF_ERROR(warm_start(policy, optimizer, units, ctx, options, seed_base, state));

  InterruptScope interrupt_scope;
  bool interrupted = false;
  std::vector<double> times;
  std::vector<bool> valid;
  while (more_updates(state.iteration)) {
    const int64_t it = state.iteration;
    if (interrupt_requested()) {
      interrupted = true;
      break;
    }
    if (ctx.budget.seconds > 0 && clock.exhausted()) break;
    torch::manual_seed(update_seed(seed_base, it));
    const double lr = learning_rate_at(options, it);
    set_learning_rate(optimizer, lr);

    PolicySample sample = policy.sample(k, /*greedy=*/false, noise_at(options, it));
    DEVPLACE_RETURN_IF_ERROR(score_samples(sample.devices, units, ctx, options, state, times, valid));
    UpdateStats stats;
    const std::vector<float> advantage = advantages(times, valid, it, options, state.baseline, stats);
    const torch::Tensor loss = reinforce_loss(advantage, sample, nu);
    optimizer.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(policy.parameters(), options.grad_clip);
    optimizer.step();
    ++state.iteration;  // before the record, so that a checkpoint counts this update
    const double entropy = sample.entropy.mean().item<double>() / std::max(1, nu);
    DEVPLACE_RETURN_IF_ERROR(run.record(state.iteration * k, stats.mean_valid_time_s, entropy,
                                        static_cast<double>(stats.num_valid) / static_cast<double>(k), lr,
                                        fraction_done(state.iteration)));
  }
  run.finish_bar();

  if (interrupted) {
    DEVPLACE_RETURN_IF_ERROR(run.save_interrupted());
    return units.to_placement(state.best);
  }
  DEVPLACE_RETURN_IF_ERROR(greedy_decode(policy, units, ctx, options, seed_base, state));
  if (!training.checkpoint_path.empty()) DEVPLACE_RETURN_IF_ERROR(run.checkpoint(training.checkpoint_path));
  const double left_s = ctx.budget.seconds > 0 ? std::max(1e-3, ctx.budget.seconds - run.wall_s() + state.elapsed_s) : 0.0;
  const int64_t polish_evaluations =
      options.polish_evaluations <= 0 ? 0 : eval_budget > 0 ? std::max<int64_t>(1, eval_budget - used()) : options.polish_evaluations;
  return polish(units, ctx, seed_base, state, polish_evaluations, left_s);
}

}  // namespace devplace::rl
