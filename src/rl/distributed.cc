// File: distributed.cc
// The parameter server and the controllers of a distributed REINFORCE run
// (see distributed.h).
#include "rl/distributed.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "common/interrupt.h"
#include "place/search.h"
#include "rl/mpi_session.h"
#include "rl/reinforce_steps.h"
#include "rl/training_run.h"
#include "rl/training_state.h"

namespace devplace::rl {

namespace {

constexpr int kTagWork = 1;    // server -> controller: {command, iteration}
constexpr int kTagParams = 2;  // server -> controller: the parameters
constexpr int kTagStats = 3;   // controller -> server: ReportStats
constexpr int kTagBest = 4;    // controller -> server: its best sample's unit devices
constexpr int kTagGrad = 5;    // controller -> server: the gradient
constexpr int kTagAnswer = 6;  // server -> all: the final placement
constexpr int64_t kStop = 0, kWork = 1;

// What a controller reports with a gradient (doubles, in this order).
struct ReportStats {
  double iteration = 0;  // the update whose parameters it sampled from
  double num_valid = 0;
  double mean_valid_time_s = 0;
  double entropy = 0;
  double best_cost = 0;
  double mean_reward = 0;
};
constexpr int kStatsDoubles = sizeof(ReportStats) / sizeof(double);

// Waits for a request, sleeping between polls (MPI's own wait spins).
void wait(MPI_Request& request, MPI_Status* status = MPI_STATUS_IGNORE) {
  int done = 0;
  for (;;) {
    MPI_Test(&request, &done, status);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

void recv(void* buffer, int count, MPI_Datatype type, int source, int tag, MPI_Status* status = MPI_STATUS_IGNORE) {
  MPI_Request request;
  MPI_Irecv(buffer, count, type, source, tag, MPI_COMM_WORLD, &request);
  wait(request, status);
}

void send(const void* buffer, int count, MPI_Datatype type, int dest, int tag) {
  MPI_Request request;
  MPI_Isend(buffer, count, type, dest, tag, MPI_COMM_WORLD, &request);
  wait(request);
}

std::vector<float> flat_parameters(PlacementPolicy& policy) {
  std::vector<float> out;
  for (const torch::Tensor& p : policy.parameters()) {
    const torch::Tensor c = p.detach().contiguous().to(torch::kFloat);
    out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return out;
}

void set_parameters(PlacementPolicy& policy, const std::vector<float>& flat) {
  torch::NoGradGuard no_grad;
  size_t at = 0;
  for (torch::Tensor& p : policy.parameters()) {
    const int64_t n = p.numel();
    p.copy_(torch::from_blob(const_cast<float*>(flat.data() + at), p.sizes(), torch::kFloat));
    at += static_cast<size_t>(n);
  }
}

std::vector<float> flat_gradient(PlacementPolicy& policy) {
  std::vector<float> out;
  for (const torch::Tensor& p : policy.parameters()) {
    if (p.grad().defined()) {
      const torch::Tensor g = p.grad().contiguous();
      out.insert(out.end(), g.data_ptr<float>(), g.data_ptr<float>() + g.numel());
    } else {
      out.insert(out.end(), static_cast<size_t>(p.numel()), 0.0f);
    }
  }
  return out;
}

void set_gradient(PlacementPolicy& policy, const std::vector<float>& flat) {
  size_t at = 0;
  for (torch::Tensor& p : policy.parameters()) {
    const torch::Tensor g = torch::from_blob(const_cast<float*>(flat.data() + at), p.sizes(), torch::kFloat).clone();
    p.mutable_grad() = g;
    at += static_cast<size_t>(p.numel());
  }
}

// A controller: pull parameters, sample, score, push the gradient, until told to stop.
Status run_controller(PlacementPolicy& policy, const Grouping& units, const PlaceContext& ctx, const ReinforceOptions& options,
                      uint64_t seed_base, int rank, size_t num_params) {
  const int nu = units.num_groups();
  const int64_t k = options.samples_per_update;
  std::vector<float> params(num_params);
  TrainState local;  // this controller's best and moving-average baseline
  std::vector<double> times;
  std::vector<bool> valid;
  for (int64_t round = 0;; ++round) {
    int64_t header[3] = {kStop, 0, 0};
    recv(header, 3, MPI_INT64_T, 0, kTagWork);
    if (header[0] == kStop) return Status::ok_status();
    recv(params.data(), static_cast<int>(num_params), MPI_FLOAT, 0, kTagParams);
    set_parameters(policy, params);
    const int64_t it = header[1];
    double entropy_weight = 0;
    std::memcpy(&entropy_weight, &header[2], sizeof entropy_weight);
    torch::manual_seed(update_seed(seed_base, it, rank * 1'000'003LL + round));
    PolicySample sample = policy.sample(k, /*greedy=*/false, noise_at(options, it));
    const double before = local.best_cost;
    DEVPLACE_RETURN_IF_ERROR(score_samples(sample.devices, units, ctx, options, local, times, valid));
    UpdateStats stats;
    // A controller's moving-average baseline starts from its first batch.
    const std::vector<float> advantage = advantages(times, valid, round == 0 ? 0 : std::max<int64_t>(it, 1), options, local.baseline, stats);
    policy.zero_grad();
    // One plain policy-gradient step per batch: PPO's later epochs would
    // need the batch at the server.
    policy_loss(advantage, sample, sample.log_prob.detach(), /*clip=*/0, entropy_weight).backward();
    double mean_reward = 0;
    for (double t : times) mean_reward += std::sqrt(t) / static_cast<double>(k);
    const ReportStats report{static_cast<double>(it), static_cast<double>(stats.num_valid), stats.mean_valid_time_s,
                             sample.entropy.mean().item<double>(),
                             local.best_cost < before ? local.best_cost : std::numeric_limits<double>::infinity(), mean_reward};
    std::vector<int32_t> best(local.best.begin(), local.best.end());
    best.resize(static_cast<size_t>(nu), 0);
    const std::vector<float> grad = flat_gradient(policy);
    send(&report, kStatsDoubles, MPI_DOUBLE, 0, kTagStats);
    send(best.data(), nu, MPI_INT32_T, 0, kTagBest);
    send(grad.data(), static_cast<int>(grad.size()), MPI_FLOAT, 0, kTagGrad);
  }
}

}  // namespace

Result<Placement> train_distributed(PlacementPolicy& policy, const Grouping& units, const PlaceContext& ctx,
                                    const ReinforceOptions& given, std::string_view method) {
  if (!mpi_start()) return invalid_input("--distributed: MPI cannot start (run devplace under mpirun)");
  const int rank = mpi_rank(), size = mpi_size();
  if (size < 2)
    return invalid_input("--distributed needs at least 2 MPI ranks (rank 0 holds the policy, the others sample): "
                         "mpirun -np 3 devplace place ... --distributed");
  ReinforceOptions options = effective_options(ctx, given);
  const TrainingRunOptions& training = ctx.training;
  const bool sync = training.distributed == Distribution::kSync;
  const int nu = units.num_groups();
  const int64_t k = options.samples_per_update;
  use_one_thread();
  const uint64_t seed_base = ctx.rng.next_u64();
  torch::manual_seed(seed_base & 0x7fffffffffffffffULL);
  const size_t num_params = flat_parameters(policy).size();
  const int64_t start_evaluations = ctx.evaluator.num_evaluations();
  const int controllers = size - 1;
  std::vector<int32_t> answer(static_cast<size_t>(ctx.problem.num_ops()));

  if (rank != 0) {
    DEVPLACE_RETURN_IF_ERROR(run_controller(policy, units, ctx, options, seed_base, rank, num_params));
    recv(answer.data(), static_cast<int>(answer.size()), MPI_INT32_T, 0, kTagAnswer);
    return Placement{std::vector<DeviceId>(answer.begin(), answer.end())};
  }

  // Rank 0: the parameter server.
  const int64_t iterations = training.iterations > 0 ? training.iterations
                             : ctx.budget.seconds > 0 ? std::numeric_limits<int64_t>::max()
                                                      : options.default_iterations;
  const double train_seconds = ctx.budget.seconds * (options.polish_evaluations > 0 ? 1.0 - options.polish_time_share : 1.0);
  const SearchClock clock(Budget{train_seconds, 0}, ctx.evaluator, 0);
  torch::optim::Adam optimizer(policy.parameters(), torch::optim::AdamOptions(options.learning_rate));
  TrainState state;
  TrainingRun run(policy, optimizer, state, Fingerprint{nu, ctx.problem.num_devices(), k, name_hash(method)}, training, method,
                  std::string(method) + " x" + std::to_string(controllers));
  DEVPLACE_RETURN_IF_ERROR(run.open());
  DEVPLACE_RETURN_IF_ERROR(warm_start(policy, optimizer, units, ctx, options, seed_base, state));

  InterruptScope interrupt_scope;
  bool interrupted = false;
  const int64_t first_iteration = state.iteration;
  const int64_t evaluations_before = state.evaluations;
  int64_t samples = 0;
  // --evaluations bounds the samples of all controllers together, with one
  // evaluation kept for the greedy decode and the polish's share.
  const int64_t eval_budget = ctx.budget.evaluations;
  if (eval_budget > 0) options.polish_evaluations = std::min(options.polish_evaluations, eval_budget / 4);
  int64_t in_flight = 0;  // batches sent and not yet received
  auto more_updates = [&] {
    if (interrupt_requested()) interrupted = true;
    if (eval_budget > 0 &&
        (ctx.evaluator.num_evaluations() - start_evaluations) + samples + (in_flight + 1) * k + 1 + options.polish_evaluations > eval_budget)
      return false;
    return !interrupted && state.iteration < iterations && !(ctx.budget.seconds > 0 && clock.exhausted());
  };
  auto fraction = [&] {
    double f = iterations == std::numeric_limits<int64_t>::max() ? clock.progress()
                                                                 : static_cast<double>(state.iteration) / static_cast<double>(iterations);
    if (eval_budget > 0) f = std::max(f, static_cast<double>(samples) / static_cast<double>(eval_budget));
    return std::min(1.0, f);
  };
  auto send_work = [&](int dest) {
    const std::vector<float> params = flat_parameters(policy);
    const double entropy_weight = entropy_weight_at(options, state.evaluations);
    int64_t header[3] = {kWork, state.iteration, 0};
    std::memcpy(&header[2], &entropy_weight, sizeof entropy_weight);
    send(header, 3, MPI_INT64_T, dest, kTagWork);
    ++in_flight;
    send(params.data(), static_cast<int>(params.size()), MPI_FLOAT, dest, kTagParams);
  };
  auto send_stop = [&](int dest) {
    const int64_t header[3] = {kStop, state.iteration, 0};
    send(header, 3, MPI_INT64_T, dest, kTagWork);
  };
  std::vector<int32_t> best_row(static_cast<size_t>(nu));
  std::vector<float> grad(num_params), sum(num_params);
  // Receives one controller's report (from `source`, or any); keeps its best. Returns the source.
  auto receive_report = [&](int source, ReportStats& report) {
    MPI_Status status;
    recv(&report, kStatsDoubles, MPI_DOUBLE, source, kTagStats, &status);
    const int from = status.MPI_SOURCE;
    recv(best_row.data(), nu, MPI_INT32_T, from, kTagBest);
    recv(grad.data(), static_cast<int>(num_params), MPI_FLOAT, from, kTagGrad);
    samples += k;
    --in_flight;
    if (report.best_cost < state.best_cost) {
      state.best_cost = report.best_cost;
      state.best.assign(best_row.begin(), best_row.end());
    }
    return from;
  };
  // One Adam step on `g`, then the log row and the checkpoint.
  auto apply = [&](const std::vector<float>& g, const ReportStats& report, double valid_fraction) -> Status {
    const double lr = learning_rate_at(options, state.iteration);
    set_learning_rate(optimizer, lr);
    set_gradient(policy, g);
    torch::nn::utils::clip_grad_norm_(policy.parameters(), options.grad_clip);
    optimizer.step();
    state.baseline = state.iteration == 0 ? report.mean_reward
                                          : options.baseline_decay * state.baseline + (1 - options.baseline_decay) * report.mean_reward;
    ++state.iteration;
    state.evaluations = evaluations_before + samples;
    return run.record(state.evaluations, report.mean_valid_time_s, report.entropy, valid_fraction, lr, fraction());
  };

  Status failed;
  if (sync) {
    while (failed.ok() && more_updates()) {
      for (int c = 1; c <= controllers; ++c) send_work(c);
      std::fill(sum.begin(), sum.end(), 0.0f);
      ReportStats mean{};
      double valid = 0;
      for (int c = 1; c <= controllers; ++c) {
        ReportStats report;
        receive_report(c, report);
        for (size_t i = 0; i < num_params; ++i) sum[i] += grad[i] / static_cast<float>(controllers);
        valid += report.num_valid;
        mean.mean_reward += report.mean_reward / controllers;
        mean.entropy += report.entropy / controllers;
        if (std::isfinite(report.mean_valid_time_s)) mean.mean_valid_time_s += report.mean_valid_time_s * report.num_valid;
      }
      mean.mean_valid_time_s = valid > 0 ? mean.mean_valid_time_s / valid : std::numeric_limits<double>::quiet_NaN();
      failed = apply(sum, mean, valid / static_cast<double>(k * controllers));
    }
    for (int c = 1; c <= controllers; ++c) send_stop(c);
  } else {
    int active = 0;
    for (int c = 1; c <= controllers; ++c) {
      if (more_updates()) {
        send_work(c);
        ++active;
      } else {
        send_stop(c);
      }
    }
    while (active > 0) {
      ReportStats report;
      const int from = receive_report(MPI_ANY_SOURCE, report);
      // A gradient that comes after the budget ran out is dropped.
      if (failed.ok() && more_updates()) failed = apply(grad, report, report.num_valid / static_cast<double>(k));
      if (failed.ok() && more_updates()) {
        send_work(from);
      } else {
        send_stop(from);
        --active;
      }
    }
  }
  run.finish_bar();
  const double seconds = run.wall_s() - state.elapsed_s;
  std::fprintf(stderr, "%.*s: distributed over %d controllers (%s): %lld updates, %lld placements sampled in %.1f s (%.0f per minute)\n",
               static_cast<int>(method.size()), method.data(), controllers, sync ? "sync" : "async",
               static_cast<long long>(state.iteration - first_iteration), static_cast<long long>(samples), seconds,
               seconds > 0 ? 60.0 * static_cast<double>(samples) / seconds : 0.0);

  Result<Placement> result = Placement{};
  if (!failed.ok()) {
    result = failed.error();
  } else if (state.best.empty()) {
    result = internal_error("distributed training ended without a placement");
  } else if (interrupted) {
    const Status saved = run.save_interrupted();
    result = saved.ok() ? Result<Placement>(units.to_placement(state.best)) : Result<Placement>(saved.error());
  } else {
    Status s = greedy_decode(policy, units, ctx, options, seed_base, state);
    if (s.ok() && !training.checkpoint_path.empty()) s = run.checkpoint(training.checkpoint_path);
    const double left_s = ctx.budget.seconds > 0 ? std::max(1e-3, ctx.budget.seconds - run.wall_s() + state.elapsed_s) : 0.0;
    result = s.ok() ? polish(units, ctx, seed_base, state, std::max<int64_t>(0, options.polish_evaluations), left_s) : Result<Placement>(s.error());
  }
  // Every rank returns the answer (an empty one when rank 0 failed: they print nothing).
  if (result.ok()) {
    std::copy(result.value().device_of_op.begin(), result.value().device_of_op.end(), answer.begin());
  } else {
    std::fill(answer.begin(), answer.end(), 0);
  }
  for (int c = 1; c <= controllers; ++c) send(answer.data(), static_cast<int>(answer.size()), MPI_INT32_T, c, kTagAnswer);
  return result;
}

}  // namespace devplace::rl
