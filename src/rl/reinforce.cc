// File: reinforce.cc
// The REINFORCE training loop of the learned placers (see reinforce.h).
#include "rl/reinforce.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "common/check.h"
#include "common/file_io.h"
#include "common/interrupt.h"
#include "common/progress.h"
#include "place/local_search.h"
#include "place/search.h"

namespace devplace::rl {

namespace {

constexpr int64_t kCheckpointVersion = 1;
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

// What a checkpoint holds besides the policy and the optimizer.
struct TrainState {
  int64_t iteration = 0;  // updates done
  double baseline = 0;
  double elapsed_s = 0;   // training wall time before this run
  std::vector<DeviceId> best;
  double best_cost = std::numeric_limits<double>::infinity();
};

// The problem and method a checkpoint was made for, so that one is never
// resumed on another.
struct Fingerprint {
  int64_t units = 0;
  int64_t devices = 0;
  int64_t samples = 0;
  int64_t method = 0;  // a hash of the method name
  bool operator==(const Fingerprint&) const = default;
};

int64_t name_hash(std::string_view name) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return static_cast<int64_t>(h >> 1);
}

torch::Tensor scalar(double v) { return torch::tensor({v}, torch::kDouble); }
torch::Tensor scalar(int64_t v) { return torch::tensor({v}, torch::kLong); }

// Written to FILE.tmp, then renamed, so a crash mid-write never loses the
// previous checkpoint.
Status save_checkpoint(const std::string& path, PlacementPolicy& policy, torch::optim::Optimizer& optimizer,
                       const TrainState& state, const Fingerprint& fp) {
  try {
    torch::serialize::OutputArchive archive;
    archive.write("version", scalar(kCheckpointVersion));
    archive.write("units", scalar(fp.units));
    archive.write("devices", scalar(fp.devices));
    archive.write("samples", scalar(fp.samples));
    archive.write("method", scalar(fp.method));
    archive.write("iteration", scalar(state.iteration));
    archive.write("baseline", scalar(state.baseline));
    archive.write("elapsed_s", scalar(state.elapsed_s));
    archive.write("best_cost", scalar(state.best_cost));
    std::vector<int64_t> best(state.best.begin(), state.best.end());
    archive.write("best", torch::tensor(best, torch::kLong));
    torch::serialize::OutputArchive policy_archive, optimizer_archive;
    policy.save(policy_archive);
    optimizer.save(optimizer_archive);
    archive.write("policy", policy_archive);
    archive.write("optimizer", optimizer_archive);
    const std::string tmp = path + ".tmp";
    archive.save_to(tmp);
    std::filesystem::rename(tmp, path);
  } catch (const std::exception& e) {
    return internal_error(path + ": cannot write the checkpoint: " + std::string(e.what()).substr(0, 200));
  }
  return Status::ok_status();
}

Status load_checkpoint(const std::string& path, PlacementPolicy& policy, torch::optim::Optimizer& optimizer, TrainState& state,
                       const Fingerprint& fp, std::string_view method) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const std::exception&) {
    return invalid_input(path + ": not a devplace checkpoint (cannot read it)");
  }
  try {
    // A fresh tensor per read: read() into a defined tensor keeps its dtype.
    auto read_long = [&](const char* key) {
      torch::Tensor t;
      archive.read(key, t);
      return t.item<int64_t>();
    };
    auto read_double = [&](const char* key) {
      torch::Tensor t;
      archive.read(key, t);
      return t.item<double>();
    };
    if (read_long("version") != kCheckpointVersion) return invalid_input(path + ": a checkpoint of another devplace version");
    Fingerprint saved{read_long("units"), read_long("devices"), read_long("samples"), read_long("method")};
    if (saved.method != fp.method) return invalid_input(path + ": not a checkpoint of method '" + std::string(method) + "'");
    if (!(saved == fp)) {
      return invalid_input(path + ": made for " + std::to_string(saved.units) + " groups on " + std::to_string(saved.devices) +
                           " devices with " + std::to_string(saved.samples) + " samples per update; this run has " +
                           std::to_string(fp.units) + " groups on " + std::to_string(fp.devices) + " devices with " +
                           std::to_string(fp.samples));
    }
    state.iteration = read_long("iteration");
    state.baseline = read_double("baseline");
    state.elapsed_s = read_double("elapsed_s");
    state.best_cost = read_double("best_cost");
    torch::Tensor t;
    archive.read("best", t);
    state.best.assign(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
    torch::serialize::InputArchive policy_archive, optimizer_archive;
    archive.read("policy", policy_archive);
    archive.read("optimizer", optimizer_archive);
    policy.load(policy_archive);
    optimizer.load(optimizer_archive);
  } catch (const std::exception&) {
    return invalid_input(path + ": a damaged or foreign checkpoint (a field is missing or has the wrong shape)");
  }
  if (!state.best.empty() && static_cast<int64_t>(state.best.size()) != fp.units) {
    return invalid_input(path + ": its best placement has the wrong size");
  }
  return Status::ok_status();
}

// The CSV training log. On resume, rows after the checkpoint's update (a
// run that died after its last checkpoint) are dropped, so the log reads
// as one run.
class TrainingLog {
 public:
  static Result<TrainingLog> open(const std::string& path, int64_t resume_iteration) {
    TrainingLog log;
    if (path.empty()) return log;
    std::string kept;
    if (resume_iteration > 0 && std::filesystem::exists(path)) {
      std::ifstream in(path);
      std::string line;
      while (std::getline(in, line)) {
        const bool header = !line.empty() && !std::isdigit(static_cast<unsigned char>(line[0]));
        if (header || std::strtoll(line.c_str(), nullptr, 10) <= resume_iteration) kept += line + "\n";
      }
    }
    if (kept.empty()) kept = "iteration,wall_s,evaluations,mean_step_s,best_step_s,baseline_s,entropy,valid_fraction,learning_rate\n";
    log.out_ = std::make_unique<std::ofstream>(path, std::ios::trunc);
    if (!*log.out_) return invalid_input(path + ": cannot write the training log");
    *log.out_ << kept;
    log.out_->flush();
    return log;
  }
  void row(int64_t iteration, double wall_s, int64_t evaluations, double mean_s, double best_s, double baseline, double entropy,
           double valid_fraction, double lr) {
    if (!out_) return;
    auto num = [](double v) {
      if (!std::isfinite(v)) return std::string();
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", v);
      return std::string(buf);
    };
    *out_ << iteration << ',' << num(wall_s) << ',' << evaluations << ',' << num(mean_s) << ',' << num(best_s) << ','
          << num(baseline) << ',' << num(entropy) << ',' << num(valid_fraction) << ',' << num(lr) << '\n';
    out_->flush();
  }

 private:
  std::unique_ptr<std::ofstream> out_;
};

// One thread for torch and for the BLAS under it: a policy's matrices are
// small, and OpenBLAS's own pool (which torch::set_num_threads does not
// reach) spends its time in sched_yield. Found at run time, so any BLAS
// works.
void use_one_thread() {
  torch::set_num_threads(1);
  using SetThreads = void (*)(int);
  for (const char* name : {"openblas_set_num_threads", "goto_set_num_threads"}) {
    if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, name))) {
      set(1);
      return;
    }
  }
}

std::string format_ms(double s) {
  if (!std::isfinite(s)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  return buf;
}

}  // namespace

ReinforceOptions paper_recipe(ReinforceOptions o) {
  o.learning_rate = 0.01;
  o.batch_baseline = false;
  o.initial_noise = 0.5;
  o.warm_start_steps = 0;
  o.polish_evaluations = 0;
  return o;
}

Result<Placement> train_reinforce(PlacementPolicy& policy, const Grouping& units, const PlaceContext& ctx,
                                  const ReinforceOptions& given, std::string_view method) {
  ReinforceOptions options = ctx.training.paper_recipe ? paper_recipe(given) : given;
  if (ctx.training.polish_evaluations >= 0) options.polish_evaluations = ctx.training.polish_evaluations;
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
  const Fingerprint fp{nu, ctx.problem.num_devices(), k, name_hash(method)};
  TrainState state;
  if (!training.resume_path.empty()) {
    DEVPLACE_RETURN_IF_ERROR(load_checkpoint(training.resume_path, policy, optimizer, state, fp, method));
  }
  DEVPLACE_ASSIGN_OR_RETURN(TrainingLog log, TrainingLog::open(training.log_path, state.iteration));
  const auto run_start = std::chrono::steady_clock::now();
  auto wall_s = [&] {
    return state.elapsed_s + std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  };
  auto checkpoint = [&](const std::string& path) -> Status {
    TrainState saved = state;
    saved.elapsed_s = wall_s();
    return save_checkpoint(path, policy, optimizer, saved, fp);
  };

  // Scores samples; keeps the best. Returns each one's step time, or the
  // failure time for an OOM placement, and whether it fits.
  std::vector<DeviceId> scratch(nu);
  auto evaluate = [&](const torch::Tensor& devices, std::vector<double>& times, std::vector<bool>& valid) -> Status {
    const int64_t n = devices.size(0);
    const auto acc = devices.accessor<int64_t, 2>();
    std::vector<std::vector<DeviceId>> rows(n, std::vector<DeviceId>(nu));
    std::vector<Placement> placements;
    placements.reserve(n);
    for (int64_t s = 0; s < n; ++s) {
      for (int32_t u = 0; u < nu; ++u) rows[s][u] = static_cast<DeviceId>(acc[s][u]);
      placements.push_back(units.to_placement(rows[s]));
    }
    std::vector<Result<Evaluation>> results = ctx.evaluator.evaluate_all(placements, std::max(1, training.threads));
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
  };

  // Warm start: imitate the best placement of the fast placers.
  if (options.warm_start_steps > 0 && state.iteration == 0) {
    // Randomness from the seed alone, not ctx.rng, so that a resumed run
    // (which skips this) draws the same later.
    Rng warm_rng(seed_base ^ 0x5741524d53544152ULL);
    const PlaceContext units_ctx{ctx.problem, units, ctx.evaluator, Budget{}, warm_rng};
    DEVPLACE_ASSIGN_OR_RETURN(ScoredDevices target, best_fast_placement(units_ctx));
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
    torch::optim::Adam& imitation = optimizer;
    for (auto& group : optimizer.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(options.warm_start_learning_rate);
    for (int64_t step = 0; step < options.warm_start_steps; ++step) {
      const torch::Tensor lp = policy.log_prob_of(forced);
      if (!lp.defined()) break;
      const torch::Tensor loss = -lp.mean() / static_cast<double>(nu);
      if (std::exp(-loss.item<double>()) >= options.warm_start_confidence) break;
      imitation.zero_grad();
      loss.backward();
      torch::nn::utils::clip_grad_norm_(policy.parameters(), options.grad_clip);
      imitation.step();
    }
  }

  ProgressBar bar(std::string(method), training.progress);
  InterruptScope interrupt_scope;
  bool interrupted = false;
  std::vector<double> times;
  std::vector<bool> valid;
  for (; more_updates(state.iteration); ++state.iteration) {
    const int64_t it = state.iteration;
    if (interrupt_requested()) {
      interrupted = true;
      break;
    }
    if (ctx.budget.seconds > 0 && clock.exhausted()) break;
    // Every update draws from its own seed, so a resumed run repeats.
    torch::manual_seed((seed_base + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(it + 1)) & 0x7fffffffffffffffULL);
    const int64_t decays = it < options.lr_decay_start ? 0 : 1 + (it - options.lr_decay_start) / std::max<int64_t>(1, options.lr_decay_every);
    const double lr = options.learning_rate * std::pow(options.lr_decay, static_cast<double>(decays));
    for (auto& group : optimizer.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
    // The noise schedule depends on the update alone, so that a resumed run
    // with more updates continues it exactly.
    const double noise = it < options.noise_updates
                             ? options.initial_noise * (1.0 - static_cast<double>(it) / static_cast<double>(options.noise_updates))
                             : 0.0;

    PolicySample sample = policy.sample(k, /*greedy=*/false, noise);
    DEVPLACE_RETURN_IF_ERROR(evaluate(sample.devices, times, valid));

    std::vector<float> rewards(k);
    double mean_reward = 0, mean_valid_time = 0;
    int64_t num_valid = 0;
    for (int64_t s = 0; s < k; ++s) {
      rewards[s] = static_cast<float>(std::sqrt(times[s]));
      mean_reward += rewards[s];
      if (valid[s]) {
        mean_valid_time += times[s];
        ++num_valid;
      }
    }
    mean_reward /= static_cast<double>(k);
    state.baseline = it == 0 ? mean_reward : options.baseline_decay * state.baseline + (1 - options.baseline_decay) * mean_reward;
    // After valid_only_after updates, samples that do not fit teach nothing
    // (when some sample fits).
    std::vector<float> weight(k, 1.0f);
    if (options.valid_only_after >= 0 && it >= options.valid_only_after && num_valid > 0) {
      for (int64_t s = 0; s < k; ++s) weight[s] = valid[s] ? 1.0f : 0.0f;
    }
    std::vector<float> advantages(k);
    double sum_weighted = 0, sum_weight = 0;
    for (int64_t s = 0; s < k; ++s) {
      sum_weighted += weight[s] * rewards[s];
      sum_weight += weight[s];
    }
    for (int64_t s = 0; s < k; ++s) {
      // Leave-one-out mean of the other samples that count.
      const double others = sum_weight - weight[s] > 0 ? (sum_weighted - weight[s] * rewards[s]) / (sum_weight - weight[s]) : rewards[s];
      const double b = options.batch_baseline ? others : state.baseline;
      advantages[s] = weight[s] * static_cast<float>(rewards[s] - b);
    }
    const torch::Tensor advantage = torch::tensor(advantages);
    const torch::Tensor loss = (advantage * sample.log_prob).sum() / static_cast<double>(k * std::max(1, nu));
    optimizer.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(policy.parameters(), options.grad_clip);
    optimizer.step();

    const double best_s = state.best_cost < 100.0 ? state.best_cost : std::numeric_limits<double>::infinity();
    const double mean_s = num_valid > 0 ? mean_valid_time / static_cast<double>(num_valid) : std::numeric_limits<double>::quiet_NaN();
    const double entropy = sample.entropy.mean().item<double>() / std::max(1, nu);
    log.row(it + 1, wall_s(), (it + 1) * k, mean_s, best_s, state.baseline * state.baseline, entropy,
            static_cast<double>(num_valid) / static_cast<double>(k), lr);
    bar.update(it + 1, fraction_done(it + 1), "best " + format_ms(best_s) + ", mean " + format_ms(mean_s));
    if (!training.checkpoint_path.empty() && training.checkpoint_every > 0 && (it + 1) % training.checkpoint_every == 0) {
      DEVPLACE_RETURN_IF_ERROR(checkpoint(training.checkpoint_path));
    }
  }
  bar.finish();

  if (interrupted) {
    const std::string path = training.checkpoint_path.empty() ? std::string(method) + "-interrupted.ckpt" : training.checkpoint_path;
    DEVPLACE_RETURN_IF_ERROR(checkpoint(path));
    std::fprintf(stderr, "%.*s: interrupted after %lld updates; checkpoint in %s (continue with --resume %s)\n",
                 static_cast<int>(method.size()), method.data(), static_cast<long long>(state.iteration), path.c_str(), path.c_str());
  } else {
    {
      // The greedy decode of the trained policy competes with the best sample.
      torch::NoGradGuard no_grad;
      torch::manual_seed(seed_base & 0x7fffffffffffffffULL);
      PolicySample greedy = policy.sample(1, /*greedy=*/true, 0.0);
      DEVPLACE_RETURN_IF_ERROR(evaluate(greedy.devices, times, valid));
    }
    if (!training.checkpoint_path.empty()) DEVPLACE_RETURN_IF_ERROR(checkpoint(training.checkpoint_path));
  }
  DEVPLACE_CHECK(!state.best.empty());
  if (options.polish_evaluations > 0 && !interrupted) {
    const double left_s = ctx.budget.seconds > 0 ? std::max(1e-3, ctx.budget.seconds - wall_s() + state.elapsed_s) : 0.0;
    Rng polish_rng(seed_base ^ 0x504f4c495348ULL);
    const int64_t polish = eval_budget > 0 ? std::max<int64_t>(1, eval_budget - used()) : options.polish_evaluations;
    const PlaceContext polish_ctx{ctx.problem, units, ctx.evaluator, Budget{left_s, polish}, polish_rng};
    const SearchClock polish_clock(polish_ctx.budget, ctx.evaluator, polish);
    return local_search_from(polish_ctx, state.best, polish_clock);
  }
  return units.to_placement(state.best);
}

}  // namespace devplace::rl
