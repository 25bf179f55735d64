// File: placer.h
// Placer: proposes a placement for a problem. Each placer is one file under
// place/ and one line in registry.cc. A placer may call the evaluator as
// often as its budget allows; it never asks whether the evaluator simulates
// or measures.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/rng.h"
#include "common/status.h"
#include "group/grouping.h"
#include "sim/evaluator.h"
#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace {

// How much search a placer may do; 0 means no limit of that kind.
struct Budget {
  double seconds = 0;
  int64_t evaluations = 0;
};

// How the learned placers (rl, hierarchical) train; the others ignore it.
// The CLI fills it from --iterations, --training-log, --checkpoint,
// --checkpoint-every, --resume, --threads, --recipe, --polish, --warm-start, --learning-rate,
// --policy-hidden and --attention, and sets `progress` when stderr is a terminal.
// How a learned placer's training is spread over MPI ranks (rl/distributed.h).
enum class Distribution {
  kNone,   // one process
  kAsync,  // rank 0 applies each controller's gradient as it comes (the paper's)
  kSync,   // rank 0 averages one gradient from every controller per update (repeatable)
};

// What a learned placer imitates before REINFORCE (--warm-start).
enum class WarmStart {
  kDefault,  // the recipe's: none
  kNone,     // a random policy
  kFast,     // the best placement of the paper's baselines and the fast algorithms
  kSearch,   // local-search's placement (it starts from the fast placers' best)
};

// The learned placers' network (--attention).
enum class AttentionKind { kDefault, kAdditive, kMultiplicative };

struct TrainingRunOptions {
  int64_t iterations = 0;          // policy updates; 0: from the budget, else the method's default
  std::string log_path;            // CSV training log, one row per update ("" for none)
  std::string checkpoint_path;     // written every checkpoint_every updates and at the end ("" for none)
  int64_t checkpoint_every = 10;
  std::string resume_path;         // continue from this checkpoint ("" to start afresh)
  bool progress = false;           // draw a progress bar on stderr
  int threads = 1;                 // threads that evaluate the K samples of an update
  bool paper_recipe = false;       // train as the 2017 paper did (K = 8, moving-average baseline, plain REINFORCE)
  int64_t polish_evaluations = -1; // local search from the best placement at the end; -1: none
  WarmStart warm_start = WarmStart::kDefault;
  double learning_rate = 0;        // REINFORCE's Adam; 0: the method's default
  int64_t samples_per_update = 0;  // K; 0: the recipe's
  int64_t epochs = 0;              // optimizer steps per batch; 0: the recipe's
  double entropy_weight = -1;      // entropy bonus at the start; < 0: the recipe's
  double elite_weight = -1;        // self-imitation of the policy's best samples; < 0: the recipe's
  double stickiness = -1;          // the decoder's bonus for the previous group's device; < 0: the default
  int neighbour_devices = -1;      // the decoder sees its placed neighbours' devices: 1 on, 0 off, -1 the recipe's
  double affinity = -1;            // a fixed bonus on the logits from those devices; < 0: the default
  int policy_hidden = 0;           // LSTM units per encoder direction (the decoder has twice); 0: the default
  AttentionKind attention = AttentionKind::kDefault;
  Distribution distributed = Distribution::kNone;  // --distributed [--sync], under mpirun
};

// Everything a placer may use. The grouping is built from the problem;
// placers assign its groups, so a returned placement honours it.
struct PlaceContext {
  const Problem& problem;
  const Grouping& grouping;
  Evaluator& evaluator;
  Budget budget;
  Rng& rng;
  TrainingRunOptions training = {};
};

class Placer {
 public:
  virtual ~Placer() = default;
  virtual std::string_view name() const = 0;
  // Returns a placement that passes check_placement(problem, ...) and puts
  // each group of the grouping on one device. Placers that see several
  // candidates never return one that runs out of memory when they saw one
  // that does not.
  virtual Result<Placement> place(const PlaceContext& context) = 0;
  // What ran for this context, as tables and JSON name it: the name, or
  // a pipeline of stages joined by '>' when the placer runs others around
  // its own (a learned placer with --warm-start search and --polish:
  // "local-search>rl>local-search").
  virtual std::string label(const PlaceContext& context) const { return std::string(name()); }
};

// Where a placer stands in a comparison (`devplace compare` orders and
// selects methods by it).
enum class PlacerRole {
  kPaperBaseline,  // the paper's baselines: CPU only, single GPU, Scotch, MinCut, expert
  kSimple,         // other naive placements: round-robin, random
  kAlgorithm,      // fast placement algorithms that need no evaluator: HEFT, Baechi's m-*
  kSearch,         // search guided by the evaluator within the budget: local search
  kLearned,        // learned policies (RL): minutes of training, so run only when named
  kReference,      // exact methods for tiny graphs only (not in comparisons by default)
};

struct PlacerInfo {
  std::string_view name;
  PlacerRole role;
  std::string_view summary;  // one line for `devplace methods`
  std::unique_ptr<Placer> (*make)();
};

// Every placer, in the order `devplace methods` lists them.
const std::vector<PlacerInfo>& placer_registry();
// An unknown name is an error listing the known ones.
Result<std::unique_ptr<Placer>> make_placer(std::string_view name);

}  // namespace devplace
