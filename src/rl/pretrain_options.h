// File: pretrain_options.h
// What `devplace pretrain` hands to libdevplace_rl.so (rl_library.h): the
// corpus, already loaded, and the run's settings. No LibTorch here, so the
// CLI builds this without loading the library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/problem.h"

namespace devplace::rl {

// One graph on one cluster of the corpus. `family` is the model family the
// train/test split goes by (never split by graph).
struct PretrainProblem {
  std::string name;     // "zoo:resnet50:batch=16 on k80x4"
  std::string family;   // "resnet"
  const Problem* problem = nullptr;
};

inline constexpr int kMaxGraphRounds = 64;

struct PretrainOptions {
  int64_t updates = 2000;          // policy updates over the whole corpus (one problem each)
  int64_t samples = 16;            // placements per update
  int64_t epochs = 4;              // optimizer steps per batch (PPO-style, clip 0.2)
  double learning_rate = 1e-3;
  double entropy_weight = 0.01;    // entropy bonus, halving every entropy_half_life updates
  int64_t entropy_half_life = 1000;
  int hidden = 64;                 // LSTM units per encoder direction
  int graph_rounds = 0;            // 0: the sequence encoder; N > 0: the graph encoder, N rounds of message passing
  uint64_t seed = 1;
  int threads = 1;                 // threads that simulate an update's samples
  std::string out;                 // the policy file, written at the end (and at Ctrl-C)
  std::string checkpoint;          // written every checkpoint_every updates ("" for none)
  int64_t checkpoint_every = 50;
  std::string resume;              // continue from this checkpoint ("" to start afresh)
  // >= 0: the policy written at the end is the mean of the weights after
  // each update past this many (Polyak / stochastic weight averaging); the
  // training itself is unchanged. Checkpoints carry the running mean.
  int64_t average_from = -1;
  std::string log;                 // CSV, one row per update ("" for none)
  bool progress = false;
  // Under mpirun with MPI started (rl_library.h, start_mpi): every rank
  // samples its own problem each update and the ranks average their
  // gradients (MPI_Allreduce) before each step, so all hold the same
  // weights; rank 0 alone writes the log, checkpoints and the policy file.
  // Repeatable for a given number of ranks.
  bool distributed = false;
};

// What pretraining reports at the end, per problem: its fast baseline (the
// best of the paper's baselines and the fast placers, the log's reference)
// and the trained policy's greedy placement and best of `samples` samples.
struct PretrainSummaryRow {
  std::string name;
  double reference_s = 0;
  double greedy_s = 0;   // infinite when it does not fit
  double best_s = 0;
};
struct PretrainSummary {
  int64_t updates = 0;       // in all, those before a resume included
  int64_t evaluations = 0;   // in this run
  int64_t averaged = 0;      // updates whose weights the written policy averages (0: the last weights)
  double seconds = 0;        // this run's wall time
  std::vector<PretrainSummaryRow> rows;
};

}  // namespace devplace::rl
