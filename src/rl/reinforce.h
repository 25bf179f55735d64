// File: reinforce.h
// train_reinforce: the training loop the learned placers share (Mirhoseini
// et al. 2017, section 3.2), and what makes it a tool:
// - each update samples K placements, evaluates them (on TrainingRunOptions::
//   threads threads when the evaluator can fork), and takes one Adam step on
//   the REINFORCE loss mean((sqrt(t) - b) * log p), b an exponential moving
//   average of the mean reward; an OOM or failed placement counts as
//   failed_step_time_s; gradients are clipped to global norm 1;
// - the learning rate decays by lr_decay every lr_decay_every updates after
//   lr_decay_start (TensorFlow's schedule, shortened for simulated rewards);
// - Gaussian noise on the logits falls linearly to 0 over the first
//   noise_updates updates;
// - after valid_only_after updates, only samples that fit in memory update
//   the policy;
// - optional warm start: supervised steps that imitate the best placement
//   of the fast placers; optional polish: local search from the best
//   placement at the end;
// - the best placement ever evaluated is tracked; the answer is the better
//   of it and the greedy decode at the end;
// - a CSV training log, a progress bar, checkpoints every N updates, exact
//   resume (torch's generator is reseeded from the seed and the update
//   number, so a resumed run repeats the uninterrupted one), and Ctrl-C
//   (common/interrupt.h) saves a checkpoint and returns the best so far.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "group/grouping.h"
#include "place/placer.h"
#include "rl/placement_policy.h"

namespace devplace::rl {

// The defaults are the tuned recipe (see docs/rl.md for the ablation);
// paper_recipe() gives the 2017 paper's.
struct ReinforceOptions {
  int64_t samples_per_update = 8;   // K
  int64_t default_iterations = 200; // without --iterations or a budget
  double learning_rate = 3e-4;
  int64_t lr_decay_start = 100;
  int64_t lr_decay_every = 25;
  double lr_decay = 0.95;
  double baseline_decay = 0.9;
  // The paper's baseline is the moving average; with batch_baseline each
  // sample is compared with the mean of the other K - 1 samples of its own
  // update instead, so that the decisions all samples share (most of them,
  // once the policy is sure) get no push either way.
  bool batch_baseline = true;
  double failed_step_time_s = 100.0;
  double initial_noise = 0.0;
  int64_t noise_updates = 50;       // the logit noise falls to 0 over these updates
  double grad_clip = 1.0;
  int64_t valid_only_after = 50;    // < 0: never
  WarmStart warm_start = WarmStart::kSearch;  // what the warm start imitates (kDefault is kSearch here)
  // kSearch: local-search on this grouping (the context's when null; the
  // hierarchical planner passes the paper grouping its units refine), with
  // at most these evaluations and this share of a time budget.
  const Grouping* warm_start_grouping = nullptr;
  // The search's draws: the placer's rng as it came (so that the warm start
  // starts from exactly what --method local-search returns for the same
  // seed and budget); one drawn from the seed when null.
  const Rng* warm_start_rng = nullptr;
  int64_t warm_start_search_evaluations = 5000;
  double warm_start_time_share = 0.15;
  int64_t warm_start_steps = 300;   // most imitation steps; 0: off
  // 3e-4 left the imitation short of its target after 300 steps (RNNLM on
  // k80x4: a mean sample of 0.81 s against the target's 0.44 s; 3e-3:
  // 0.48 s, see docs/rl.md).
  double warm_start_learning_rate = 3e-3;
  double warm_start_confidence = 0.99;  // imitation stops once the target's mean probability per decision reaches it
  int64_t polish_evaluations = 5000;    // 0: off; as many as local-search makes
  double polish_time_share = 0.1;   // of a time budget, kept for the polish
};

// The 2017 paper's recipe: no warm start (WarmStart::kNone) and no polish, the moving-average
// baseline, logit noise 0.5 falling over the first 50 updates, and a larger
// learning rate for a policy that starts from scratch.
ReinforceOptions paper_recipe(ReinforceOptions options);

// Trains `policy` to place the units of `units` (a placement is
// units.to_placement of a sample's devices) and returns the best placement
// found. `method` names the checkpoints and the progress bar ("rl").
// Errors: the evaluator's (a placement it rejects), a checkpoint that cannot
// be read or was made for another problem or method (invalid input, naming
// the file).
Result<Placement> train_reinforce(PlacementPolicy& policy, const Grouping& units, const PlaceContext& context,
                                  const ReinforceOptions& options, std::string_view method);

}  // namespace devplace::rl
