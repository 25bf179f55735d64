// File: reinforce.h
// train_reinforce: the training loop the learned placers share (Mirhoseini
// et al. 2017, section 3.2), and what makes it a tool:
// - each update samples K placements from the policy and evaluates them
//   (on TrainingRunOptions::threads threads when the evaluator can fork);
//   an OOM or failed placement counts as failed_step_time_s;
// - each sample's advantage comes from sqrt(step time) (AdvantageKind);
// - then `epochs` Adam steps on the batch, each on the clipped surrogate
//   -mean(min(r A, clip(r, 1 - c, 1 + c) A)) over every decision of every
//   sample, r the decision's probability ratio to the sampling policy's
//   (with one epoch, r = 1 and this is REINFORCE's mean(-A log p)), minus
//   the entropy weight times the mean entropy per decision; gradients are
//   clipped to global norm 1;
// - the learning rate decays by lr_decay every lr_decay_every updates after
//   lr_decay_start (TensorFlow's schedule, shortened for simulated rewards);
// - Gaussian noise on the logits falls linearly to 0 over the first
//   noise_updates updates;
// - after valid_only_after updates, only samples that fit in memory update
//   the policy (the paper recipe);
// - the evaluation budget (--evaluations) is never exceeded: warm start,
//   updates, greedy decode and polish together;
// - optional warm start: supervised steps that imitate the best placement
//   of the fast placers; optional polish: local search from the best
//   placement at the end;
// - the best placement ever evaluated is tracked; the answer is the better
//   of it and the greedy decode at the end;
// - optional restarts (restart_after): a policy that has found nothing
//   better for a while starts again from its initial parameters;
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
#include "rl/training_options.h"

namespace devplace::rl {

// How each sample's advantage is computed from its step time t (OOM and
// failed placements count as failed_step_time_s).
enum class AdvantageKind {
  // The paper's: b - sqrt(t), b an exponential moving average of the
  // batches' mean sqrt(t).
  kMovingAverage,
  // The mean sqrt(t) of the other K - 1 samples of the update minus the
  // sample's: decisions all samples share get no push.
  kLeaveOneOut,
  // Standardised within the update: (mean - sqrt(t)) / std over the
  // samples that fit; a sample that does not fit gets the lowest advantage
  // of the batch minus 1. Invariant to the graph's time scale, so one
  // learning rate and entropy weight serve every graph.
  kNormalized,
};

// The defaults are devplace's recipe, found by measurement (docs/rl.md has
// the ablation): a random policy, 16 samples per update, standardised
// advantages, PPO-style clipped updates that reuse each batch for 4 epochs
// (Schulman et al. 2017; the per-decision ratio), and an entropy bonus
// that halves every 1000 evaluations. paper_recipe() gives the 2017
// paper's.
struct ReinforceOptions {
  int64_t samples_per_update = 16;  // K
  int64_t default_iterations = 200; // without --iterations or a budget
  double learning_rate = 1e-3;
  int64_t lr_decay_start = 100;     // < 0: no decay
  int64_t lr_decay_every = 25;
  double lr_decay = 0.95;
  AdvantageKind advantage = AdvantageKind::kNormalized;
  double baseline_decay = 0.9;      // kMovingAverage's
  int64_t epochs = 4;               // optimizer steps per batch (PPO); 1: plain REINFORCE
  double clip = 0.2;                // PPO's ratio clip, per decision; 0: none
  // A batch's later epochs stop once the policy's mean KL divergence per
  // decision from the one that drew it passes this (the early stop of
  // PPO implementations, e.g. Stable-Baselines3's target_kl), so that no
  // batch moves the policy far whatever the learning rate. 0: off.
  double target_kl = 0.0;
  // The entropy bonus: this weight on the mean entropy per decision,
  // halving every entropy_half_life evaluations. It depends on the
  // evaluations done, not on the budget, so that a resumed run with a
  // larger budget repeats the uninterrupted one.
  double entropy_weight = 0.01;
  int64_t entropy_half_life = 1000;  // evaluations; <= 0: constant
  // The entropy floor: while the mean entropy per decision is below it,
  // the loss adds entropy_floor_weight times the shortfall, so a policy
  // that has converged keeps exploring around its answer. A function of
  // the policy alone (no state), so a resumed run repeats. 0: off.
  double entropy_floor = 0.0;
  double entropy_floor_weight = 0.01;
  // Risk-seeking policy gradient (Petersen et al. 2021, "Deep symbolic
  // regression"), for kNormalized: only the best risk_seeking share of an
  // update's samples that fit teach, each by how much it beats the worst
  // of that share (standardised as kNormalized); the others get 0. The
  // answer is the best sample ever, not the mean one, and this trains for
  // it. 0: off (every sample teaches).
  double risk_seeking = 0.0;
  // Self-imitation (Oh et al. 2018, as the cross-entropy method keeps an
  // elite): the `elites` best distinct samples the policy has drawn so far
  // are imitated once per update, with this weight on their mean
  // log-probability per decision. 0: off.
  int64_t elites = 4;
  double elite_weight = 0.0;
  // Restarts: once this many evaluations have passed without a better
  // placement (since the last improvement or restart), the policy goes
  // back to its parameters before the first update, with a fresh
  // optimizer, learning-rate and entropy schedules and no elites, and
  // trains again with new draws; the best placement is kept. A run stuck
  // in one basin then spends the rest of its budget looking for another,
  // as a new seed would. 0: off.
  int64_t restart_after = 0;
  double failed_step_time_s = 100.0;
  double initial_noise = 0.0;
  int64_t noise_updates = 50;       // the logit noise falls to 0 over these updates
  double grad_clip = 1.0;
  int64_t valid_only_after = -1;    // kMovingAverage, kLeaveOneOut: after these updates only samples that fit count; < 0: never
  WarmStart warm_start = WarmStart::kNone;  // what the warm start imitates (kDefault is kNone here)
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
  int64_t polish_evaluations = 0;   // local search from the best placement at the end; 0: off
  double polish_time_share = 0.1;   // of a time budget, kept for the polish
  // What the user asked for (training_options.h): the run's updates, log,
  // checkpoints, resume, threads and distribution, and the values that
  // override the ones above (effective_options applies them).
  TrainingRunOptions run;
  // Out: when run.resume_path is set, the training before this run and in
  // all (null: not wanted).
  ResumedWork* resumed = nullptr;
  // Out: the policy's last update and greedy decode (null: not wanted).
  FinalPolicy* final_policy = nullptr;
};

// The 2017 paper's recipe: K = 8, the moving-average baseline, one plain
// REINFORCE step per batch, no entropy bonus, logit noise 0.5 falling over
// the first 50 updates, learning rate 0.01, only placements that fit count
// after 50 updates.
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
