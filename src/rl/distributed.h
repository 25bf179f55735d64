// File: distributed.h
// REINFORCE over MPI, as in Mirhoseini et al. 2017 (section 3.3): rank 0 is
// the parameter server, holding the policy, its Adam state, the best
// placement, the log and the checkpoints; every other rank is a controller
// that pulls the current parameters, samples K placements, scores them
// with its own evaluator (the simulator, or its own measurer), and pushes
// the gradient of its REINFORCE loss.
// - Distribution::kAsync: rank 0 applies each gradient as it arrives and
//   sends that controller the new parameters (gradients may be a few
//   updates stale, as in the paper). Results depend on timing.
// - Distribution::kSync: every update, rank 0 sends the parameters to all
//   controllers, averages their gradients in rank order and steps once:
//   the same seed gives the same placement.
// Rank 0 does the warm start first and the greedy decode and polish last,
// with its own evaluator, then sends the answer to every rank, so that all
// return the same placement (and only rank 0 prints it). Waiting ranks
// sleep between polls instead of spinning, so an oversubscribed machine
// keeps its cores for the work.
#pragma once

#include <string_view>

#include "common/status.h"
#include "group/grouping.h"
#include "place/placer.h"
#include "rl/placement_policy.h"
#include "rl/reinforce.h"

namespace devplace::rl {

// Rank 0 runs run_training (reinforce_steps.h) with the controllers as its
// update source. `options` are the effective ones, `seed_base` the run's.
// Fails (invalid input) when MPI cannot start or the job has fewer than 2
// ranks.
Result<Placement> train_distributed(PlacementPolicy& policy, const Grouping& units, const PlaceContext& context,
                                    const ReinforceOptions& options, uint64_t seed_base, std::string_view method);

}  // namespace devplace::rl
