// File: training_state.h
// What the REINFORCE trainers (reinforce.cc, and distributed.cc over MPI)
// keep and write: the training state a checkpoint holds, the fingerprint
// that ties a checkpoint to its problem and method, atomic checkpoints, and
// the CSV training log.
#pragma once

#include <cstdint>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <torch/torch.h>

#include "common/status.h"
#include "cluster/cluster.h"
#include "rl/placement_policy.h"

namespace devplace::rl {

inline constexpr int64_t kCheckpointVersion = 5;  // 2: the network's shape in the fingerprint; 3: evaluations and elites;
                                                  // 4: the logit bonuses in the network hash; 5: restarts (a 4 reads
                                                  // as a run without any)

struct TrainState {
  int64_t iteration = 0;  // updates done
  int64_t evaluations = 0;  // placements the updates evaluated, those before a resume included
  double baseline = 0;
  double elapsed_s = 0;   // training wall time before this run
  std::vector<DeviceId> best;
  double best_cost = std::numeric_limits<double>::infinity();
  // The policy's own best samples so far, best first: their decisions
  // (PolicySample::actions rows) and search costs (self-imitation).
  std::vector<std::vector<int64_t>> elite_actions;
  std::vector<double> elite_costs;
  // Restarts (ReinforceOptions::restart_after): how many so far, the
  // update and evaluation counts at the last one (the schedules count from
  // there), and the evaluation count when the best placement last improved.
  int64_t restarts = 0;
  int64_t restart_iteration = 0;
  int64_t restart_evaluations = 0;
  int64_t best_evaluations = 0;
};

// The problem and method a checkpoint was made for, so that one is never
// resumed on another.
struct Fingerprint {
  int64_t units = 0;
  int64_t devices = 0;
  int64_t samples = 0;
  int64_t method = 0;  // a hash of the method name
  int64_t network = 0; // network_hash of the policy (its parameters' names and shapes)
  bool operator==(const Fingerprint&) const = default;
};

// A hash of a method name, for the fingerprint.
int64_t name_hash(std::string_view name);
// A hash of a network's parameter names and shapes and its fixed settings:
// another --policy-hidden, --attention, --neighbours, --stickiness or
// --affinity gives another.
int64_t network_hash(const PlacementPolicy& network);

// Written to FILE.tmp, then renamed, so a crash mid-write never loses the
// previous checkpoint.
Status save_checkpoint(const std::string& path, PlacementPolicy& policy, torch::optim::Optimizer& optimizer,
                       const TrainState& state, const Fingerprint& fp);
// Refuses, with one line naming the file, a checkpoint of another version,
// method or problem.
Status load_checkpoint(const std::string& path, PlacementPolicy& policy, torch::optim::Optimizer& optimizer, TrainState& state,
                       const Fingerprint& fp, std::string_view method);

// The CSV training log. On resume, rows after the checkpoint's update (a
// run that died after its last checkpoint) are dropped, so the log reads
// as one run.
class TrainingLog {
 public:
  static Result<TrainingLog> open(const std::string& path, int64_t resume_iteration);
  void row(int64_t iteration, double wall_s, int64_t evaluations, double mean_s, double best_s, double baseline, double entropy,
           double valid_fraction, double lr, int64_t restarts);

 private:
  std::unique_ptr<std::ofstream> out_;
};

// One thread for torch and for the BLAS under it, and large blocks kept
// in the heap between updates (see training_state.cc).
void use_one_thread();

// Writes an archive to `path` atomically (a temporary file beside it, then
// rename; through a symbolic link its target is replaced, as
// write_text_file does). Throws what torch throws.
void save_archive_atomically(torch::serialize::OutputArchive& archive, const std::string& path);

// "12.3 ms", or "-" for a non-finite time.
std::string format_ms(double s);

}  // namespace devplace::rl
