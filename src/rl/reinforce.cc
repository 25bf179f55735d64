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
#include "common/progress.h"
#include "place/local_search.h"
#include "place/progress_evaluator.h"
#include "place/search.h"
#include "rl/distributed.h"
#include "rl/local_updates.h"
#include "rl/reinforce_steps.h"
#include "rl/training_run.h"
#include "rl/training_state.h"
#include "sim/simulator.h"

namespace devplace::rl {

namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

}  // namespace

Status check_finite(const torch::Tensor& loss, std::string_view method, int64_t it) {
  const double v = loss.item<double>();
  if (std::isfinite(v)) return Status::ok_status();
  return internal_error(std::string(method) + ": the training loss became non-finite at update " + std::to_string(it + 1) +
                        " (a step time the evaluator returned is absurd, or the learning rate is too large)");
}

ReinforceOptions paper_recipe(ReinforceOptions o) {
  o.samples_per_update = 8;
  o.learning_rate = 0.01;
  o.advantage = AdvantageKind::kMovingAverage;
  o.epochs = 1;
  o.clip = 0;
  o.entropy_weight = 0;
  o.entropy_floor = 0;
  o.risk_seeking = 0;
  o.initial_noise = 0.5;
  o.valid_only_after = 50;
  o.warm_start = WarmStart::kNone;
  o.polish_evaluations = 0;
  o.elites = 0;
  o.elite_weight = 0;
  return o;
}

ReinforceOptions effective_options(const PlaceContext& ctx, const ReinforceOptions& given) {
  const TrainingRunOptions& run = given.run;
  ReinforceOptions options = run.paper_recipe ? paper_recipe(given) : given;
  if (run.polish_evaluations >= 0) options.polish_evaluations = run.polish_evaluations;
  if (run.warm_start != WarmStart::kDefault) options.warm_start = run.warm_start;
  if (options.warm_start == WarmStart::kDefault) options.warm_start = WarmStart::kNone;
  if (run.learning_rate > 0) options.learning_rate = run.learning_rate;
  if (run.lr_decay > 0) options.lr_decay = run.lr_decay;
  if (run.warm_start_confidence > 0) options.warm_start_confidence = run.warm_start_confidence;
  if (run.samples_per_update > 0) options.samples_per_update = run.samples_per_update;
  if (run.epochs > 0) options.epochs = run.epochs;
  if (run.target_kl >= 0) options.target_kl = run.target_kl;
  if (run.entropy_weight >= 0) options.entropy_weight = run.entropy_weight;
  if (run.entropy_half_life > 0) options.entropy_half_life = run.entropy_half_life;
  if (run.entropy_floor >= 0) options.entropy_floor = run.entropy_floor;
  if (run.entropy_floor_weight >= 0) options.entropy_floor_weight = run.entropy_floor_weight;
  if (run.risk_seeking >= 0) options.risk_seeking = run.risk_seeking;
  if (run.elite_weight >= 0) options.elite_weight = run.elite_weight;
  if (run.restart_after > 0) options.restart_after = run.restart_after;
  // Under an evaluation budget the polish gets a quarter at most.
  if (ctx.budget.evaluations > 0) options.polish_evaluations = std::min(options.polish_evaluations, ctx.budget.evaluations / 4);
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
                     TrainState& state, std::vector<double>& times, std::vector<bool>& valid, std::vector<double>* costs) {
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
  std::vector<Result<Evaluation>> results = ctx.evaluator.evaluate_all(placements, std::max(1, options.run.threads));
  times.assign(n, 0);
  valid.assign(n, false);
  if (costs != nullptr) costs->assign(n, 0);
  for (int64_t s = 0; s < n; ++s) {
    if (!results[s].ok()) return results[s].error();
    const Evaluation& e = results[s].value();
    const double cost = search_cost_s(ctx.problem, e);
    if (costs != nullptr) (*costs)[s] = cost;
    if (cost < state.best_cost) {
      state.best_cost = cost;
      state.best = rows[s];
    }
    valid[s] = !e.oom && !e.failed;
    times[s] = e.step_time_s;
  }
  // A placement that does not fit is rewarded as the penalty time, or
  // twice the slowest that fits when steps are that slow: never better
  // than one that fits.
  double slowest_valid = 0;
  for (int64_t s = 0; s < n; ++s) {
    if (valid[s]) slowest_valid = std::max(slowest_valid, times[s]);
  }
  for (int64_t s = 0; s < n; ++s) {
    if (!valid[s]) times[s] = std::max(options.failed_step_time_s, 2 * slowest_valid);
  }
  return Status::ok_status();
}

void keep_elites(const torch::Tensor& actions, const std::vector<double>& costs, int64_t capacity, TrainState& state) {
  if (capacity <= 0) return;
  const torch::Tensor rows = actions.contiguous();
  const int64_t na = rows.size(1);
  for (int64_t s = 0; s < rows.size(0); ++s) {
    const double cost = costs[static_cast<size_t>(s)];
    if (static_cast<int64_t>(state.elite_costs.size()) >= capacity && cost >= state.elite_costs.back()) continue;
    std::vector<int64_t> row(rows[s].data_ptr<int64_t>(), rows[s].data_ptr<int64_t>() + na);
    if (std::find(state.elite_actions.begin(), state.elite_actions.end(), row) != state.elite_actions.end()) continue;
    const size_t at = static_cast<size_t>(std::upper_bound(state.elite_costs.begin(), state.elite_costs.end(), cost) - state.elite_costs.begin());
    state.elite_costs.insert(state.elite_costs.begin() + static_cast<std::ptrdiff_t>(at), cost);
    state.elite_actions.insert(state.elite_actions.begin() + static_cast<std::ptrdiff_t>(at), std::move(row));
    if (static_cast<int64_t>(state.elite_costs.size()) > capacity) {
      state.elite_costs.pop_back();
      state.elite_actions.pop_back();
    }
  }
}

torch::Tensor elite_tensor(const TrainState& state) {
  if (state.elite_actions.empty()) return {};
  const int64_t ne = static_cast<int64_t>(state.elite_actions.size());
  const int64_t na = static_cast<int64_t>(state.elite_actions[0].size());
  torch::Tensor t = torch::empty({ne, na}, torch::kLong);
  for (int64_t e = 0; e < ne; ++e) std::copy(state.elite_actions[e].begin(), state.elite_actions[e].end(), t[e].data_ptr<int64_t>());
  return t;
}

std::vector<float> advantages(const std::vector<double>& times, const std::vector<bool>& valid, int64_t it,
                              const ReinforceOptions& options, double& baseline, UpdateStats& stats) {
  const size_t k = times.size();
  std::vector<double> rewards(k);
  double mean_reward = 0, valid_time = 0;
  stats.num_valid = 0;
  for (size_t s = 0; s < k; ++s) {
    rewards[s] = std::sqrt(times[s]);
    mean_reward += rewards[s];
    if (valid[s]) {
      valid_time += times[s];
      ++stats.num_valid;
    }
  }
  mean_reward /= static_cast<double>(k);
  stats.mean_valid_time_s = stats.num_valid > 0 ? valid_time / static_cast<double>(stats.num_valid) : std::numeric_limits<double>::quiet_NaN();
  baseline = it == 0 ? mean_reward : options.baseline_decay * baseline + (1 - options.baseline_decay) * mean_reward;
  std::vector<float> out(k, 0.0f);
  if (options.advantage == AdvantageKind::kNormalized) {
    // Standardised over the samples that fit (over all when none does).
    const bool some_valid = stats.num_valid > 0;
    double sum = 0, sum_sq = 0, n = 0;
    for (size_t s = 0; s < k; ++s) {
      if (some_valid && !valid[s]) continue;
      sum += rewards[s];
      sum_sq += rewards[s] * rewards[s];
      n += 1;
    }
    const double mean = sum / n;
    const double var = std::max(0.0, sum_sq / n - mean * mean);
    // Equal rewards (a policy sure of everything) teach nothing.
    const double scale = var > 1e-18 * mean * mean ? 1.0 / std::sqrt(var) : 0.0;
    if (options.risk_seeking > 0) {
      // The worst reward of the best share (sqrt(t): lower is better).
      std::vector<double> counted;
      for (size_t s = 0; s < k; ++s)
        if (!some_valid || valid[s]) counted.push_back(rewards[s]);
      std::sort(counted.begin(), counted.end());
      const size_t m = std::clamp<size_t>(static_cast<size_t>(std::ceil(options.risk_seeking * static_cast<double>(counted.size()))), 1,
                                          counted.size());
      const double threshold = counted[m - 1];
      for (size_t s = 0; s < k; ++s) {
        if (some_valid && !valid[s]) continue;
        out[s] = static_cast<float>(std::max(0.0, threshold - rewards[s]) * scale);
      }
      return out;
    }
    float lowest = 0.0f;
    for (size_t s = 0; s < k; ++s) {
      if (some_valid && !valid[s]) continue;
      out[s] = static_cast<float>((mean - rewards[s]) * scale);
      lowest = std::min(lowest, out[s]);
    }
    for (size_t s = 0; s < k; ++s) {
      if (some_valid && !valid[s]) out[s] = lowest - 1.0f;
    }
    return out;
  }
  // After valid_only_after updates, samples that do not fit teach nothing
  // (when some sample fits).
  std::vector<double> weight(k, 1.0);
  if (options.valid_only_after >= 0 && it >= options.valid_only_after && stats.num_valid > 0) {
    for (size_t s = 0; s < k; ++s) weight[s] = valid[s] ? 1.0 : 0.0;
  }
  double sum_weighted = 0, sum_weight = 0;
  for (size_t s = 0; s < k; ++s) {
    sum_weighted += weight[s] * rewards[s];
    sum_weight += weight[s];
  }
  for (size_t s = 0; s < k; ++s) {
    // Leave-one-out mean of the other samples that count.
    const double others = sum_weight - weight[s] > 0 ? (sum_weighted - weight[s] * rewards[s]) / (sum_weight - weight[s]) : rewards[s];
    const double b = options.advantage == AdvantageKind::kLeaveOneOut ? others : baseline;
    out[s] = static_cast<float>(weight[s] * (b - rewards[s]));
  }
  return out;
}

torch::Tensor policy_loss(const std::vector<float>& advantage, const PolicySample& now, const torch::Tensor& sampled_log_prob,
                          double clip, double entropy_weight, double entropy_floor, double floor_weight) {
  const torch::Tensor a = torch::tensor(advantage).unsqueeze(1);  // [K, 1]
  torch::Tensor surrogate;
  if (clip > 0) {
    const torch::Tensor ratio = torch::exp(now.log_prob - sampled_log_prob);  // [K, A]
    surrogate = torch::min(ratio * a, torch::clamp(ratio, 1.0 - clip, 1.0 + clip) * a);
  } else {
    surrogate = a * now.log_prob;
  }
  torch::Tensor loss = -surrogate.mean();
  if (entropy_weight > 0) loss = loss - entropy_weight * now.entropy.mean();
  if (entropy_floor > 0 && floor_weight > 0) loss = loss + floor_weight * torch::relu(entropy_floor - now.entropy.mean());
  return loss;
}

double mean_kl(const torch::Tensor& sampled_log_prob, const torch::Tensor& log_prob) {
  torch::NoGradGuard no_grad;
  const torch::Tensor log_r = log_prob.detach() - sampled_log_prob;
  return (torch::exp(log_r) - 1 - log_r).mean().item<double>();
}

double entropy_weight_at(const ReinforceOptions& options, int64_t evaluations) {
  if (options.entropy_half_life <= 0) return options.entropy_weight;
  return options.entropy_weight * std::exp2(-static_cast<double>(std::max<int64_t>(0, evaluations)) / static_cast<double>(options.entropy_half_life));
}

namespace {

// The placement the warm start imitates, per unit.
Result<ScoredDevices> warm_start_target(const Grouping& units, const PlaceContext& ctx, const ReinforceOptions& options, Rng& rng) {
  // At most a quarter of an evaluation budget (at least one evaluation).
  const int64_t quarter = std::max<int64_t>(1, ctx.budget.evaluations / 4);
  if (options.warm_start == WarmStart::kFast) {
    const Budget budget{0, ctx.budget.evaluations > 0 ? quarter : 0};
    ProgressBar bar("warm start (fast placers)", options.run.progress);
    ProgressEvaluator shown(ctx.evaluator, bar, budget);
    return best_fast_placement(PlaceContext{ctx.problem, units, shown, budget, rng});
  }
  // local-search's own evaluations, capped by that quarter and a share of
  // a time budget.
  Budget budget{ctx.budget.seconds * options.warm_start_time_share, options.warm_start_search_evaluations};
  if (ctx.budget.evaluations > 0) budget.evaluations = std::min(budget.evaluations, quarter);
  const Grouping& grouping = options.warm_start_grouping != nullptr ? *options.warm_start_grouping : units;
  // Thousands of measured runs would cost more than the training: with a
  // measurer the search runs on the simulator, and only its answer is
  // measured.
  std::optional<Simulator> simulator;
  if (ctx.evaluator.measures()) simulator.emplace(ctx.problem);
  Evaluator& search_evaluator = simulator ? static_cast<Evaluator&>(*simulator) : ctx.evaluator;
  Rng search_rng = options.warm_start_rng != nullptr ? *options.warm_start_rng : Rng(rng.next_u64());
  ProgressBar bar("warm start (local-search)", options.run.progress);
  ProgressEvaluator shown(search_evaluator, bar, budget);
  DEVPLACE_ASSIGN_OR_RETURN(Placement placement, LocalSearchPlacer().place(PlaceContext{ctx.problem, grouping, shown, budget, search_rng}));
  bar.finish();
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
  ProgressBar bar("warm start (imitation)", options.run.progress);
  for (int64_t step = 0; step < options.warm_start_steps && !interrupt_requested(); ++step) {
    const torch::Tensor lp = policy.log_prob_of(forced);
    if (!lp.defined()) break;
    const torch::Tensor loss = -lp.mean() / static_cast<double>(nu);
    const double probability = std::exp(-loss.item<double>());
    bar.update(step, static_cast<double>(step) / static_cast<double>(options.warm_start_steps),
               "steps, the target's probability per decision " + std::to_string(probability).substr(0, 5) + " (stops at " +
                   std::to_string(options.warm_start_confidence).substr(0, 4) + ")");
    if (probability >= options.warm_start_confidence) break;
    optimizer.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(policy.parameters(), options.grad_clip);
    optimizer.step();
  }
  return Status::ok_status();
}

Status greedy_decode(PlacementPolicy& policy, const Grouping& units, const PlaceContext& ctx, const ReinforceOptions& options,
                     uint64_t seed_base, TrainState& state, FinalPolicy* out) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(seed_base & 0x7fffffffffffffffULL);
  PolicySample greedy = policy.sample(1, /*greedy=*/true, 0.0);
  std::vector<double> times;
  std::vector<bool> valid;
  DEVPLACE_RETURN_IF_ERROR(score_samples(greedy.devices, units, ctx, options, state, times, valid));
  if (out != nullptr) {
    out->greedy_step_s = times[0];
    out->greedy_oom = !valid[0];
  }
  return Status::ok_status();
}

Result<Placement> polish(const Grouping& units, const PlaceContext& ctx, uint64_t seed_base, const TrainState& state,
                         int64_t evaluations, double seconds) {
  DEVPLACE_CHECK(!state.best.empty());
  if (evaluations <= 0) return units.to_placement(state.best);
  Rng polish_rng(seed_base ^ 0x504f4c495348ULL);
  const PlaceContext polish_ctx{ctx.problem, units, ctx.evaluator, Budget{seconds, evaluations}, polish_rng};
  const SearchClock polish_clock(polish_ctx.budget, ctx.evaluator, evaluations);
  return local_search_from(polish_ctx, ScoredDevices{state.best, state.best_cost}, polish_clock);
}

Result<Placement> run_training(PlacementPolicy& policy, torch::optim::Optimizer& optimizer, TrainState& state, UpdateSource& source,
                               const Grouping& units, const PlaceContext& ctx, const ReinforceOptions& options, uint64_t seed_base,
                               std::string_view method) {
  const TrainingRunOptions& training = options.run;
  // The budget: --iterations and --evaluations both bound the updates
  // (with an evaluation budget, the polish's share and one evaluation for
  // the greedy decode are kept); a time budget alone trains until the
  // clock runs out; without any, the default update count.
  const int64_t start_evaluations = ctx.evaluator.num_evaluations();
  auto used = [&] { return ctx.evaluator.num_evaluations() - start_evaluations + source.remote_evaluations(); };
  const int64_t eval_budget = ctx.budget.evaluations;
  const int64_t iterations = training.iterations > 0 ? training.iterations
                             : eval_budget > 0 || ctx.budget.seconds > 0 ? kUnbounded
                                                                         : options.default_iterations;
  auto left = [&] {
    return eval_budget > 0 ? std::max<int64_t>(0, eval_budget - used() - 1 - options.polish_evaluations) : UpdateSource::kNoLimit;
  };
  // With a time budget, the polish keeps a share of it.
  const double train_seconds = ctx.budget.seconds * (options.polish_evaluations > 0 ? 1.0 - options.polish_time_share : 1.0);
  const SearchClock clock(Budget{train_seconds, 0}, ctx.evaluator, 0);
  auto fraction_done = [&](int64_t it) {
    double f = iterations == kUnbounded ? 0.0 : static_cast<double>(it) / static_cast<double>(iterations);
    if (eval_budget > 0) f = std::max(f, static_cast<double>(used()) / static_cast<double>(std::max<int64_t>(1, eval_budget - options.polish_evaluations)));
    if (ctx.budget.seconds > 0) f = std::max(f, clock.progress());
    return std::min(1.0, f);
  };

  // The cooling schedule (--cool-to): the sampling temperature falls
  // geometrically from 1 to cool_to over the updates or the evaluations of
  // the budget, whichever is further along, both counted by the training
  // state (a resumed run's included), never by the clock: so a seed repeats
  // its run, and a resume continues the schedule where it stopped.
  const bool cooling = training.cool_to != 1.0;
  if (cooling && iterations == kUnbounded && eval_budget <= 0)
    return invalid_input("--cool-to needs --iterations or --evaluations: the temperature falls over them");
  auto temperature_at = [&](int64_t it) {
    double f = iterations == kUnbounded ? 0.0 : static_cast<double>(it) / static_cast<double>(iterations);
    if (eval_budget > 0)
      f = std::max(f, static_cast<double>(state.evaluations) /
                          static_cast<double>(std::max<int64_t>(1, eval_budget - options.polish_evaluations)));
    return std::pow(training.cool_to, std::min(1.0, f));
  };

  // What a restart returns to: the parameters before the first update
  // (the seed's random initialisation, or --init's policy), taken before a
  // checkpoint is loaded, so that a resumed run restarts to the same.
  std::vector<torch::Tensor> initial_parameters;
  if (options.restart_after > 0) {
    torch::NoGradGuard no_grad;
    for (const torch::Tensor& p : policy.parameters()) initial_parameters.push_back(p.detach().clone());
  }
  auto restart = [&] {
    torch::NoGradGuard no_grad;
    const std::vector<torch::Tensor> params = policy.parameters();
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(initial_parameters[i]);
    optimizer.state().clear();  // Adam's moments and step counts: a fresh optimizer
    state.elite_actions.clear();
    state.elite_costs.clear();
    ++state.restarts;
    state.restart_iteration = state.iteration;
    state.restart_evaluations = state.evaluations;
  };

  TrainingRun run(policy, optimizer, state, Fingerprint{units.num_groups(), ctx.problem.num_devices(), options.samples_per_update, name_hash(method)},
                  training, method, source.label());
  DEVPLACE_RETURN_IF_ERROR(run.open());
  // What the caller learns at every return from here on: a resumed run's
  // training before it and in all, and the policy at the end (its last
  // update's samples, then its greedy decode).
  FinalPolicy final_policy;
  struct EndReport {
    ResumedWork* resumed;
    FinalPolicy* policy_out;
    const FinalPolicy& policy;
    const TrainState& state;
    const TrainingRun& run;
    ~EndReport() {
      if (resumed != nullptr) {
        resumed->updates_total = state.iteration;
        resumed->evaluations_total = state.evaluations;
        resumed->seconds_total = run.wall_s();
      }
      if (policy_out != nullptr) {
        *policy_out = policy;
        policy_out->updates = state.iteration;
        policy_out->restarts = state.restarts;
      }
    }
  } end_report{training.resume_path.empty() ? nullptr : options.resumed, options.final_policy, final_policy, state, run};
  if (end_report.resumed != nullptr) {
    *end_report.resumed = ResumedWork{training.resume_path, state.iteration, state.evaluations, state.elapsed_s};
  }
  // Ctrl-C from here on (the warm start's search and imitation too) saves
  // a checkpoint and returns the best placement so far.
  InterruptScope interrupt_scope;
  DEVPLACE_RETURN_IF_ERROR(warm_start(policy, optimizer, units, ctx, options, seed_base, state));
  // A spent time budget cuts an update short; Ctrl-C does not, so that its
  // checkpoint holds whole updates and a resume repeats the run exactly.
  if (ctx.budget.seconds > 0) source.set_stop_check([&] { return clock.progress() >= 1.0; });

  bool interrupted = false;
  Status failed;
  while (state.iteration < iterations && source.can_update(left())) {
    if (interrupt_requested()) {
      interrupted = true;
      break;
    }
    if (ctx.budget.seconds > 0 && clock.exhausted()) break;
    const int64_t it = state.iteration;
    // The learning-rate and entropy schedules count from the last restart
    // (the start, without one); the draws (update_seed) from the start, so
    // that a restarted policy samples anew.
    const double lr = learning_rate_at(options, it - state.restart_iteration);
    set_learning_rate(optimizer, lr);
    const double temperature = cooling ? temperature_at(it) : 1.0;
    if (cooling) policy.set_sampling_temperature(temperature);
    const double best_before = state.best_cost;
    Result<UpdateOutcome> outcome =
        source.update(it, left(), entropy_weight_at(options, state.evaluations - state.restart_evaluations), temperature);
    if (!outcome.ok()) {
      failed = outcome.error();
      break;
    }
    ++state.iteration;  // before the record, so that a checkpoint counts this update
    state.evaluations += outcome.value().samples;
    if (state.best_cost < best_before) state.best_evaluations = state.evaluations;
    final_policy.samples = outcome.value().samples;
    final_policy.mean_sample_step_s = outcome.value().mean_valid_time_s;
    final_policy.fit_fraction = outcome.value().valid_fraction;
    final_policy.entropy_per_decision = outcome.value().entropy;
    // A restart before the record, so that a checkpoint taken there holds
    // the restarted policy and the log row shows the count.
    if (options.restart_after > 0 &&
        state.evaluations - std::max(state.best_evaluations, state.restart_evaluations) >= options.restart_after &&
        state.iteration < iterations && source.can_update(left()))
      restart();
    failed = run.record(state.evaluations, outcome.value().mean_valid_time_s, outcome.value().entropy, outcome.value().valid_fraction,
                        lr, fraction_done(state.iteration));
    if (!failed.ok()) break;
  }
  source.stop();
  if (cooling) policy.set_sampling_temperature(1.0);  // the policy as trained, for the greedy decode and a checkpoint's user
  run.finish_bar();
  DEVPLACE_RETURN_IF_ERROR(failed);

  if (interrupted) {
    DEVPLACE_RETURN_IF_ERROR(run.save_interrupted());
    if (state.best.empty()) return internal_error(std::string(method) + ": interrupted before any placement was evaluated");
    return units.to_placement(state.best);
  }
  if (eval_budget <= 0 || used() < eval_budget) DEVPLACE_RETURN_IF_ERROR(greedy_decode(policy, units, ctx, options, seed_base, state, &final_policy));
  if (state.best.empty()) return internal_error(std::string(method) + ": the budget allowed no evaluation");
  if (!training.checkpoint_path.empty()) DEVPLACE_RETURN_IF_ERROR(run.checkpoint(training.checkpoint_path));
  const double left_s = ctx.budget.seconds > 0 ? std::max(1e-3, ctx.budget.seconds - run.wall_s() + state.elapsed_s) : 0.0;
  const int64_t polish_evaluations = options.polish_evaluations <= 0 ? 0
                                     : eval_budget > 0            ? std::max<int64_t>(0, eval_budget - used())
                                                                  : options.polish_evaluations;
  return polish(units, ctx, seed_base, state, polish_evaluations, left_s);
}

Result<Placement> train_reinforce(PlacementPolicy& policy, const Grouping& units, const PlaceContext& ctx,
                                  const ReinforceOptions& given, std::string_view method) {
  const ReinforceOptions options = effective_options(ctx, given);
  use_one_thread();
  const uint64_t seed_base = ctx.rng.next_u64();
  // What draws before the first update draws from the seed.
  torch::manual_seed(seed_base & 0x7fffffffffffffffULL);
  if (options.run.distributed != Distribution::kNone) return train_distributed(policy, units, ctx, options, seed_base, method);
  torch::optim::Adam optimizer(policy.parameters(), torch::optim::AdamOptions(options.learning_rate));
  TrainState state;
  LocalUpdates source(policy, optimizer, units, ctx, options, state, seed_base, method);
  return run_training(policy, optimizer, state, source, units, ctx, options, seed_base, method);
}

}  // namespace devplace::rl
