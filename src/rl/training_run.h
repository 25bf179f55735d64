// File: training_run.h
// TrainingRun: the bookkeeping both REINFORCE trainers (reinforce.cc, and
// distributed.cc's parameter server) do around their updates: resuming from
// a checkpoint, the training wall clock, after each update the CSV log row,
// the progress bar and the periodic checkpoint, and the checkpoint an
// interrupt leaves.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <torch/torch.h>

#include "common/progress.h"
#include "common/status.h"
#include "place/placer.h"
#include "rl/training_options.h"
#include "rl/placement_policy.h"
#include "rl/training_state.h"

namespace devplace::rl {

class TrainingRun {
 public:
  TrainingRun(PlacementPolicy& policy, torch::optim::Optimizer& optimizer, TrainState& state, const Fingerprint& fingerprint,
              const TrainingRunOptions& training, std::string_view method, std::string bar_label);
  // Loads training.resume_path (if any) into policy, optimizer and state,
  // and opens the training log (dropping rows past the checkpoint). Once,
  // before anything else.
  Status open();

  // Training seconds, those of the runs before a resume included.
  double wall_s() const;
  Status checkpoint(const std::string& path);
  // After an update: state.iteration counts it already. Writes the log
  // row, moves the bar (fraction_done in 0..1) and writes the checkpoint
  // every training.checkpoint_every updates.
  Status record(int64_t evaluations, double mean_valid_s, double entropy, double valid_fraction, double lr, double fraction_done);
  void finish_bar() {
    if (bar_) bar_->finish();
  }
  // Saves the checkpoint (--checkpoint, else METHOD-interrupted.ckpt) and
  // says on stderr how to continue.
  Status save_interrupted();

 private:
  PlacementPolicy* policy_;
  torch::optim::Optimizer* optimizer_;
  TrainState* state_;
  Fingerprint fingerprint_;
  const TrainingRunOptions* training_;
  std::string method_, bar_label_;
  TrainingLog log_;
  std::unique_ptr<ProgressBar> bar_;  // from the first update on, so that its ETA leaves the warm start out
  std::chrono::steady_clock::time_point start_;
};

}  // namespace devplace::rl
