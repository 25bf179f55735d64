// File: pretrain.cc
// Pretraining one portable policy over a corpus (see pretrain.h).
#include "rl/pretrain.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <numeric>

#include "common/file_io.h"
#include "common/format.h"
#include "common/interrupt.h"
#include "common/progress.h"
#include "common/rng.h"
#include "group/grouping.h"
#include "place/search.h"
#include <mpi.h>

#include "rl/mpi_session.h"
#include "rl/portable_policy.h"
#include "rl/training_state.h"
#include "rl/reinforce_steps.h"
#include "sim/simulator.h"

namespace devplace::rl {

namespace {

struct Entry {
  const PretrainProblem* source = nullptr;
  std::unique_ptr<Grouping> grouping;
  std::unique_ptr<Simulator> simulator;
  std::unique_ptr<PortablePolicy> policy;
  double reference_s = 0;
  TrainState state;
};

// The problem update `it` trains on: pass it / n visits the corpus in a
// shuffled order drawn from the seed and the pass.
size_t problem_at(int64_t it, size_t n, uint64_t seed) {
  const int64_t pass = it / static_cast<int64_t>(n);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  Rng rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(pass) + 1);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.next_u64() % i]);
  return order[static_cast<size_t>(it % static_cast<int64_t>(n))];
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Averages the gradients of `params` over the MPI job's ranks.
void average_gradients(const std::vector<torch::Tensor>& params, std::vector<float>& buffer, int ranks) {
  size_t n = 0;
  for (const torch::Tensor& p : params) n += static_cast<size_t>(p.numel());
  buffer.assign(n, 0.0f);
  size_t at = 0;
  for (const torch::Tensor& p : params) {
    if (p.grad().defined()) std::copy_n(p.grad().contiguous().data_ptr<float>(), p.numel(), buffer.data() + at);
    at += static_cast<size_t>(p.numel());
  }
  MPI_Allreduce(MPI_IN_PLACE, buffer.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  at = 0;
  for (const torch::Tensor& p : params) {
    torch::Tensor sum = torch::from_blob(buffer.data() + at, p.sizes(), torch::kFloat);
    if (p.grad().defined()) {
      p.mutable_grad().copy_(sum).div_(ranks);
    } else {
      p.mutable_grad() = sum.clone().div_(ranks);
    }
    at += static_cast<size_t>(p.numel());
  }
}

// Keeps the header and the rows of updates 1..updates of a training log.
Status truncate_log(const std::string& path, int64_t updates) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::ok_status();
  DEVPLACE_ASSIGN_OR_RETURN(const std::string text, read_text_file(path));
  std::string kept;
  size_t pos = 0;
  bool header = true;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) break;  // a row cut short by the crash
    const std::string line = text.substr(pos, end - pos + 1);
    pos = end + 1;
    if (!header) {
      char* stop = nullptr;
      const long long update = std::strtoll(line.c_str(), &stop, 10);
      if (stop == line.c_str() || update < 1 || update > updates) continue;
    }
    header = false;
    kept += line;
  }
  return write_text_file(path, kept);
}

double ms(double s) { return std::isfinite(s) ? s * 1e3 : std::numeric_limits<double>::infinity(); }

}  // namespace

Result<PretrainSummary> pretrain(const std::vector<PretrainProblem>& corpus, const PretrainOptions& options) {
  if (corpus.empty()) return invalid_input("pretrain: the corpus is empty");
  use_one_thread();
  const auto start = std::chrono::steady_clock::now();
  PortableNet net{nullptr};
  int64_t done = 0;
  bool resumed = false;
  WeightAverage average;
  average.from = options.average_from;
  if (!options.resume.empty()) {
    DEVPLACE_ASSIGN_OR_RETURN(LoadedPortable loaded, load_portable(options.resume));
    if (!loaded.has_optimizer)
      return invalid_input(options.resume + ": a policy file, not a pretraining checkpoint (no optimizer state); --resume takes --checkpoint's file");
    net = loaded.net;
    done = loaded.updates;
    resumed = true;
    // The average must cover the same updates as an uninterrupted run's.
    if (loaded.has_average && loaded.average.from != options.average_from)
      return invalid_input(options.resume + ": the checkpoint averages the weights after update " + std::to_string(loaded.average.from) +
                           "; resume with --average-from " + std::to_string(loaded.average.from));
    if (!loaded.has_average && options.average_from >= 0 && done > options.average_from)
      return invalid_input(options.resume + ": the checkpoint, at update " + std::to_string(done) + ", holds no weight average from update " +
                           std::to_string(options.average_from) + "; --average-from must be at least " + std::to_string(done));
    if (loaded.has_average) average = loaded.average;
  } else {
    torch::manual_seed(options.seed & 0x7fffffffffffffffULL);
    PortableOptions po;
    po.hidden = options.hidden;
    po.graph_rounds = options.graph_rounds;
    net = PortableNet(po);
  }
  torch::optim::Adam optimizer(net->parameters(), torch::optim::AdamOptions(options.learning_rate));
  if (resumed) DEVPLACE_RETURN_IF_ERROR(load_portable_optimizer(options.resume, optimizer));

  std::vector<Entry> entries(corpus.size());
  Rng rng(options.seed);
  for (size_t i = 0; i < corpus.size(); ++i) {
    Entry& e = entries[i];
    e.source = &corpus[i];
    const Problem& problem = *corpus[i].problem;
    e.grouping = std::make_unique<Grouping>(Grouping::create(problem));
    e.simulator = std::make_unique<Simulator>(problem);
    e.policy = std::make_unique<PortablePolicy>(net, portable_inputs(problem, *e.grouping));
    DEVPLACE_ASSIGN_OR_RETURN(const ScoredDevices fast,
                              best_fast_placement(PlaceContext{problem, *e.grouping, *e.simulator, Budget{}, rng}));
    e.reference_s = fast.cost;
  }

  const int ranks = options.distributed ? mpi_size() : 1;
  const int rank = options.distributed ? mpi_rank() : 0;
  const bool leader = rank == 0;
  std::ofstream log;
  if (!options.log.empty() && leader) {
    // A resumed run's log continues the checkpoint's: rows a crashed run
    // wrote after it are dropped.
    if (resumed) DEVPLACE_RETURN_IF_ERROR(truncate_log(options.log, done));
    log.open(options.log, resumed ? std::ios::app : std::ios::trunc);
    if (!log) return invalid_input(options.log + ": cannot open for writing");
    if (!resumed) log << "update,problem,mean_ms,best_ms,reference_ms,mean_over_reference,entropy,valid_fraction,seconds\n";
  }

  std::vector<float> grad_buffer;
  ReinforceOptions ro;
  ro.advantage = AdvantageKind::kNormalized;
  ro.run.threads = options.threads;
  InterruptScope interrupt_scope;
  ProgressBar bar("pretrain", options.progress && leader);
  std::vector<double> times;
  std::vector<bool> valid;
  double baseline = 0;
  PretrainSummary summary;
  const int64_t first = done;
  auto write_checkpoint = [&](int64_t updates) -> Status {
    if (options.checkpoint.empty()) return Status::ok_status();
    return save_portable(options.checkpoint, net, &optimizer, updates, &average);
  };
  for (int64_t it = first; it < options.updates; ++it) {
    if (ranks == 1 && interrupt_requested()) break;
    // Rank r of R trains on the corpus's (R it + r)th problem of its order.
    Entry& e = entries[problem_at(it * ranks + rank, entries.size(), options.seed)];
    const PlaceContext ctx{*e.source->problem, *e.grouping, *e.simulator, Budget{}, rng};
    torch::manual_seed(update_seed(options.seed, it, rank));
    const PolicySample sample = e.policy->sample(options.samples, /*greedy=*/false, 0.0);
    DEVPLACE_RETURN_IF_ERROR(score_samples(sample.devices, *e.grouping, ctx, ro, e.state, times, valid));
    UpdateStats stats;
    const std::vector<float> advantage = advantages(times, valid, it, ro, baseline, stats);
    const torch::Tensor sampled_log_prob = sample.log_prob.detach();
    const double entropy_weight =
        options.entropy_half_life > 0 ? options.entropy_weight * std::exp2(-static_cast<double>(it) / static_cast<double>(options.entropy_half_life))
                                      : options.entropy_weight;
    for (int64_t epoch = 0; epoch < std::max<int64_t>(1, options.epochs); ++epoch) {
      const PolicySample now = epoch == 0 ? sample : e.policy->evaluate(sample.actions);
      const torch::Tensor loss = policy_loss(advantage, now, sampled_log_prob, ro.clip, entropy_weight);
      DEVPLACE_RETURN_IF_ERROR(check_finite(loss, "pretrain", it));
      optimizer.zero_grad();
      loss.backward();
      if (ranks > 1) average_gradients(net->parameters(), grad_buffer, ranks);
      torch::nn::utils::clip_grad_norm_(net->parameters(), ro.grad_clip);
      optimizer.step();
    }
    summary.evaluations += options.samples * ranks;
    double best = std::numeric_limits<double>::infinity();
    for (size_t s = 0; s < times.size(); ++s)
      if (valid[s]) best = std::min(best, times[s]);
    const double entropy = sample.entropy.mean().item<double>();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (log) {
      log << (it + 1) << ',' << '"' << e.source->name << '"' << ',' << fixed(ms(stats.mean_valid_time_s), 3) << ','
          << fixed(ms(best), 3) << ',' << fixed(ms(e.reference_s), 3) << ','
          << fixed(stats.mean_valid_time_s / e.reference_s, 4) << ',' << fixed(entropy, 4) << ','
          << fixed(static_cast<double>(stats.num_valid) / static_cast<double>(times.size()), 3) << ','
          << fixed(seconds, 1) << '\n';
      log.flush();
    }
    bar.update(it + 1, static_cast<double>(it + 1) / static_cast<double>(options.updates),
               "mean/fast " + fixed(stats.mean_valid_time_s / e.reference_s, 3) + ", entropy " + fixed(entropy, 3));
    done = it + 1;
    if (options.average_from >= 0 && done > options.average_from) {
      // The running mean of the weights after updates average_from+1 .. done.
      torch::NoGradGuard no_grad;
      const std::vector<torch::Tensor> params = net->parameters();
      if (average.weights.empty()) {
        for (const torch::Tensor& p : params) average.weights.push_back(p.detach().clone());
      } else {
        const double n = static_cast<double>(done - options.average_from);
        for (size_t i = 0; i < params.size(); ++i) average.weights[i].add_(params[i].detach() - average.weights[i], 1.0 / n);
      }
    }
    if (leader && options.checkpoint_every > 0 && done % options.checkpoint_every == 0) DEVPLACE_RETURN_IF_ERROR(write_checkpoint(done));
    // Every rank stops after the same update when one was interrupted.
    if (ranks > 1) {
      int stop = interrupt_requested() ? 1 : 0;
      MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (stop) break;
    }
  }
  bar.finish();
  summary.updates = done;
  if (!leader) return summary;
  DEVPLACE_RETURN_IF_ERROR(write_checkpoint(done));
  if (!average.weights.empty()) {
    // Training is over: the net takes the averaged weights, which are what
    // is written and what the summary below measures.
    torch::NoGradGuard no_grad;
    const std::vector<torch::Tensor> params = net->parameters();
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(average.weights[i]);
    summary.averaged = done - average.from;
  }
  if (!options.out.empty()) DEVPLACE_RETURN_IF_ERROR(save_portable(options.out, net, nullptr, done));

  // What the policy learned: its greedy placement and the best of K samples of each problem.
  torch::NoGradGuard no_grad;
  for (Entry& e : entries) {
    PretrainSummaryRow row;
    row.name = e.source->name;
    row.reference_s = e.reference_s;
    const PlaceContext ctx{*e.source->problem, *e.grouping, *e.simulator, Budget{}, rng};
    torch::manual_seed(update_seed(options.seed, -1));
    TrainState probe;
    DEVPLACE_RETURN_IF_ERROR(score_samples(e.policy->sample(1, /*greedy=*/true, 0.0).devices, *e.grouping, ctx, ro, probe, times, valid));
    row.greedy_s = valid[0] ? times[0] : std::numeric_limits<double>::infinity();
    DEVPLACE_RETURN_IF_ERROR(score_samples(e.policy->sample(options.samples, false, 0.0).devices, *e.grouping, ctx, ro, probe, times, valid));
    row.best_s = row.greedy_s;
    for (size_t s = 0; s < times.size(); ++s)
      if (valid[s]) row.best_s = std::min(row.best_s, times[s]);
    summary.evaluations += 1 + options.samples;
    summary.rows.push_back(row);
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace devplace::rl
