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
#include <string>
#include <thread>
#include <vector>

#include "rl/mpi_session.h"
#include "rl/reinforce_steps.h"
#include "rl/training_state.h"
#include "rl/update_source.h"

namespace devplace::rl {

namespace {

constexpr int kTagWork = 1;    // server -> controller: the header (kHeaderWords)
constexpr int kTagParams = 2;  // server -> controller: the parameters
constexpr int kTagStats = 3;   // controller -> server: ReportStats
constexpr int kTagBest = 4;    // controller -> server: its best sample's unit devices
constexpr int kTagGrad = 5;    // controller -> server: the gradient
constexpr int kTagAnswer = 6;  // server -> all: the final placement
constexpr int64_t kStop = 0, kWork = 1;
// A work message's header: kStop or kWork, the update, the entropy weight's
// and the sampling temperature's bits.
constexpr int kHeaderWords = 4;

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
    int64_t header[kHeaderWords] = {kStop, 0, 0, 0};
    recv(header, kHeaderWords, MPI_INT64_T, 0, kTagWork);
    if (header[0] == kStop) return Status::ok_status();
    recv(params.data(), static_cast<int>(num_params), MPI_FLOAT, 0, kTagParams);
    set_parameters(policy, params);
    const int64_t it = header[1];
    double entropy_weight = 0;
    std::memcpy(&entropy_weight, &header[2], sizeof entropy_weight);
    double temperature = 1.0;
    std::memcpy(&temperature, &header[3], sizeof temperature);
    policy.set_sampling_temperature(temperature);
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
    policy_loss(advantage, sample, sample.log_prob.detach(), /*clip=*/0, entropy_weight, options.entropy_floor,
                options.entropy_floor_weight)
        .backward();
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

// The parameter server's update source: each update is one gradient (async:
// whichever controller answers first; the idle ones get the current
// parameters first, while the budget allows) or the average of one per
// controller in rank order (sync), then one optimizer step.
class ParameterServer : public UpdateSource {
 public:
  ParameterServer(PlacementPolicy& policy, torch::optim::Optimizer& optimizer, TrainState& state, const ReinforceOptions& options,
                  int num_units, int controllers, bool sync, std::string_view method)
      : policy_(policy),
        optimizer_(optimizer),
        state_(state),
        options_(options),
        k_(options.samples_per_update),
        controllers_(controllers),
        sync_(sync),
        method_(method),
        num_params_(flat_parameters(policy).size()),
        best_row_(static_cast<size_t>(num_units)),
        grad_(num_params_),
        sum_(num_params_) {
    for (int c = controllers; c >= 1; --c) idle_.push_back(c);
  }

  bool can_update(int64_t left) const override {
    if (sync_) return left >= k_ * controllers_;
    return in_flight_ > 0 || left >= k_;
  }

  Result<UpdateOutcome> update(int64_t it, int64_t left, double entropy_weight, double temperature) override {
    ReportStats report{};
    UpdateOutcome outcome;
    if (sync_) {
      for (int c = 1; c <= controllers_; ++c) send_work(c, it, entropy_weight, temperature);
      idle_.clear();
      std::fill(sum_.begin(), sum_.end(), 0.0f);
      double valid = 0, valid_time = 0;
      for (int c = 1; c <= controllers_; ++c) {
        ReportStats one;
        idle_.push_back(receive_report(c, one));
        for (size_t i = 0; i < num_params_; ++i) sum_[i] += grad_[i] / static_cast<float>(controllers_);
        valid += one.num_valid;
        report.mean_reward += one.mean_reward / controllers_;
        report.entropy += one.entropy / controllers_;
        if (std::isfinite(one.mean_valid_time_s)) valid_time += one.mean_valid_time_s * one.num_valid;
      }
      report.mean_valid_time_s = valid > 0 ? valid_time / valid : std::numeric_limits<double>::quiet_NaN();
      outcome.samples = k_ * controllers_;
      outcome.valid_fraction = valid / static_cast<double>(outcome.samples);
      apply(sum_, report.mean_reward);
    } else {
      // Every idle controller gets the current parameters while the budget
      // has room for its batch.
      for (int64_t room = left; !idle_.empty() && room >= k_; room -= k_) {
        send_work(idle_.back(), it, entropy_weight, temperature);
        idle_.pop_back();
      }
      idle_.push_back(receive_report(MPI_ANY_SOURCE, report));
      outcome.samples = k_;
      outcome.valid_fraction = report.num_valid / static_cast<double>(k_);
      apply(grad_, report.mean_reward);
    }
    outcome.mean_valid_time_s = report.mean_valid_time_s;
    outcome.entropy = report.entropy;
    ++updates_;
    return outcome;
  }

  int64_t remote_evaluations() const override { return received_ * k_ + in_flight_ * k_; }

  // Receives what is in flight (its best placements count, its gradients
  // are dropped), then stops every controller. Once.
  void stop() override {
    if (stopped_) return;
    stopped_ = true;
    while (in_flight_ > 0) {
      ReportStats report;
      receive_report(MPI_ANY_SOURCE, report);
    }
    for (int c = 1; c <= controllers_; ++c) {
      const int64_t header[kHeaderWords] = {kStop, state_.iteration, 0, 0};
      send(header, kHeaderWords, MPI_INT64_T, c, kTagWork);
    }
  }

  std::string label() const override { return method_ + " x" + std::to_string(controllers_); }
  int64_t updates() const { return updates_; }
  int64_t placements() const { return received_ * k_; }

 private:
  void send_work(int dest, int64_t it, double entropy_weight, double temperature) {
    const std::vector<float> params = flat_parameters(policy_);
    int64_t header[kHeaderWords] = {kWork, it, 0, 0};
    std::memcpy(&header[2], &entropy_weight, sizeof entropy_weight);
    std::memcpy(&header[3], &temperature, sizeof temperature);
    send(header, kHeaderWords, MPI_INT64_T, dest, kTagWork);
    send(params.data(), static_cast<int>(params.size()), MPI_FLOAT, dest, kTagParams);
    ++in_flight_;
  }

  // One controller's report (from `source`, or any) into `report` and
  // grad_; keeps its best placement. Returns the controller.
  int receive_report(int source, ReportStats& report) {
    MPI_Status status;
    recv(&report, kStatsDoubles, MPI_DOUBLE, source, kTagStats, &status);
    const int from = status.MPI_SOURCE;
    recv(best_row_.data(), static_cast<int>(best_row_.size()), MPI_INT32_T, from, kTagBest);
    recv(grad_.data(), static_cast<int>(num_params_), MPI_FLOAT, from, kTagGrad);
    --in_flight_;
    ++received_;
    if (report.best_cost < state_.best_cost) {
      state_.best_cost = report.best_cost;
      state_.best.assign(best_row_.begin(), best_row_.end());
    }
    return from;
  }

  // One optimizer step on `g` (the loop has set the learning rate).
  void apply(const std::vector<float>& g, double mean_reward) {
    set_gradient(policy_, g);
    torch::nn::utils::clip_grad_norm_(policy_.parameters(), options_.grad_clip);
    optimizer_.step();
    state_.baseline = state_.iteration == 0 ? mean_reward
                                            : options_.baseline_decay * state_.baseline + (1 - options_.baseline_decay) * mean_reward;
  }

  PlacementPolicy& policy_;
  torch::optim::Optimizer& optimizer_;
  TrainState& state_;
  const ReinforceOptions& options_;
  int64_t k_;
  int controllers_;
  bool sync_;
  std::string method_;
  size_t num_params_;
  std::vector<int32_t> best_row_;
  std::vector<float> grad_, sum_;
  std::vector<int> idle_;  // controllers waiting for work, the next last
  int64_t in_flight_ = 0;  // batches sent and not yet received
  int64_t received_ = 0;
  int64_t updates_ = 0;
  bool stopped_ = false;
};

}  // namespace

Result<Placement> train_distributed(PlacementPolicy& policy, const Grouping& units, const PlaceContext& ctx,
                                    const ReinforceOptions& options, uint64_t seed_base, std::string_view method) {
  if (!mpi_start()) return invalid_input("--distributed: MPI cannot start (run devplace under mpirun)");
  const int rank = mpi_rank(), size = mpi_size();
  if (size < 2)
    return invalid_input("--distributed needs at least 2 MPI ranks (rank 0 holds the policy, the others sample): "
                         "mpirun -np 3 devplace place ... --distributed");
  const bool sync = options.run.distributed == Distribution::kSync;
  const int controllers = size - 1;
  std::vector<int32_t> answer(static_cast<size_t>(ctx.problem.num_ops()));

  if (rank != 0) {
    DEVPLACE_RETURN_IF_ERROR(run_controller(policy, units, ctx, options, seed_base, rank, flat_parameters(policy).size()));
    recv(answer.data(), static_cast<int>(answer.size()), MPI_INT32_T, 0, kTagAnswer);
    return Placement{std::vector<DeviceId>(answer.begin(), answer.end())};
  }

  // Rank 0: the parameter server runs the training loop.
  torch::optim::Adam optimizer(policy.parameters(), torch::optim::AdamOptions(options.learning_rate));
  TrainState state;
  ParameterServer server(policy, optimizer, state, options, units.num_groups(), controllers, sync, method);
  const auto start = std::chrono::steady_clock::now();
  Result<Placement> result = run_training(policy, optimizer, state, server, units, ctx, options, seed_base, method);
  server.stop();  // when the loop failed before it began
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "%.*s: distributed over %d controllers (%s): %lld updates, %lld placements sampled in %.1f s (%.0f per minute)\n",
               static_cast<int>(method.size()), method.data(), controllers, sync ? "sync" : "async",
               static_cast<long long>(server.updates()), static_cast<long long>(server.placements()), seconds,
               seconds > 0 ? 60.0 * static_cast<double>(server.placements()) / seconds : 0.0);
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
