// File: pretrain.h
// Pretraining (`devplace pretrain`): one portable policy
// (portable_policy.h) trained over a corpus of problems, so that it places
// graphs it has never seen (--method pretrained) or starts rl there
// (--init).
//
// Each update takes the next problem of the corpus in a fixed shuffled
// order (a new order each pass, from the seed), samples K placements of it
// with the shared network, simulates them and takes the PPO-style steps of
// the rl placer on standardised advantages (reinforce_steps.h): the
// advantages are standardised within the problem's batch, so graphs whose
// steps take 5 ms and 5 s teach alike. An entropy bonus halves every
// entropy_half_life updates.
//
// A tool's run: a CSV log (update, problem, mean and best sample against
// the problem's fast baseline, entropy), a progress bar, checkpoints with
// the optimizer state, exact resume (torch's generator is reseeded from the
// seed and the update number), and Ctrl-C, which writes the checkpoint and
// the policy file and stops.
#pragma once

#include <vector>

#include "common/status.h"
#include "rl/pretrain_options.h"

namespace devplace::rl {

Result<PretrainSummary> pretrain(const std::vector<PretrainProblem>& corpus, const PretrainOptions& options);

}  // namespace devplace::rl
