// File: training_run.cc
// The trainers' bookkeeping around updates (see training_run.h).
#include "rl/training_run.h"

#include <cstdio>
#include <filesystem>
#include <limits>

#include "place/search.h"

namespace devplace::rl {

TrainingRun::TrainingRun(PlacementPolicy& policy, torch::optim::Optimizer& optimizer, TrainState& state,
                         const Fingerprint& fingerprint, const TrainingRunOptions& training, std::string_view method,
                         std::string bar_label)
    : policy_(&policy),
      optimizer_(&optimizer),
      state_(&state),
      fingerprint_(fingerprint),
      training_(&training),
      method_(method),
      bar_label_(std::move(bar_label)),
      start_(std::chrono::steady_clock::now()) {
  fingerprint_.network = network_hash(policy);
}

Status TrainingRun::open() {
  if (!training_->resume_path.empty()) {
    DEVPLACE_RETURN_IF_ERROR(load_checkpoint(training_->resume_path, *policy_, *optimizer_, *state_, fingerprint_, method_));
  }
  DEVPLACE_ASSIGN_OR_RETURN(log_, TrainingLog::open(training_->log_path, state_->iteration));
  start_ = std::chrono::steady_clock::now();
  return Status::ok_status();
}

double TrainingRun::wall_s() const {
  return state_->elapsed_s + std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

Status TrainingRun::checkpoint(const std::string& path) {
  TrainState saved = *state_;
  saved.elapsed_s = wall_s();
  return save_checkpoint(path, *policy_, *optimizer_, saved, fingerprint_);
}

Status TrainingRun::record(int64_t evaluations, double mean_valid_s, double entropy, double valid_fraction, double lr,
                           double fraction_done) {
  const TrainState& state = *state_;
  const double best_s = is_feasible_cost(state.best_cost) ? state.best_cost : std::numeric_limits<double>::infinity();
  log_.row(state.iteration, wall_s(), evaluations, mean_valid_s, best_s, state.baseline * state.baseline, entropy, valid_fraction, lr, state.restarts);
  if (!bar_) bar_ = std::make_unique<ProgressBar>(bar_label_, training_->progress);
  bar_->update(state.iteration, fraction_done, "best " + format_ms(best_s) + ", mean " + format_ms(mean_valid_s));
  if (!training_->checkpoint_path.empty() && training_->checkpoint_every > 0 && state.iteration % training_->checkpoint_every == 0) {
    return checkpoint(training_->checkpoint_path);
  }
  return Status::ok_status();
}

namespace {

// The first of NAME.ckpt, NAME-2.ckpt, ... in `folder` that does not exist
// yet, so that an interrupted run never overwrites another's checkpoint.
std::string unused_checkpoint_name(const std::filesystem::path& folder, const std::string& name) {
  std::error_code ec;
  for (int k = 1;; ++k) {
    const std::filesystem::path p = folder / (k == 1 ? name + ".ckpt" : name + "-" + std::to_string(k) + ".ckpt");
    if (!std::filesystem::exists(std::filesystem::symlink_status(p, ec))) return p.string();
  }
}

}  // namespace

Status TrainingRun::save_interrupted() {
  std::string path = training_->checkpoint_path;
  if (path.empty()) {
    // Without --checkpoint: METHOD-interrupted.ckpt here, or in the
    // temporary folder when this folder cannot take it.
    path = unused_checkpoint_name(".", method_ + "-interrupted");
    if (Status s = checkpoint(path); !s.ok()) {
      path = unused_checkpoint_name(std::filesystem::temp_directory_path(), method_ + "-interrupted");
      DEVPLACE_RETURN_IF_ERROR(checkpoint(path));
    }
  } else {
    DEVPLACE_RETURN_IF_ERROR(checkpoint(path));
  }
  std::fprintf(stderr, "%s: interrupted after %lld updates; checkpoint in %s (continue with --resume %s)\n", method_.c_str(),
               static_cast<long long>(state_->iteration), path.c_str(), path.c_str());
  return Status::ok_status();
}

}  // namespace devplace::rl
