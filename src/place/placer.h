// File: placer.h
// Placer: proposes a placement for a problem. Each placer is one file under
// place/ and one line in registry.cc. A placer may call the evaluator as
// often as its budget allows; it never asks whether the evaluator simulates
// or measures.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
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

// An option only some methods take (the learned placers' --iterations,
// --checkpoint, ...), declared by the method itself: the CLI lists it in
// --help, accepts it, and hands its value to the methods that declare it.
struct MethodOptionSpec {
  std::string name;   // without the leading "--"
  std::string value;  // placeholder shown in help ("FILE"); empty for a flag
  std::string help;
  bool output = false;  // a file the method writes: checked before any work
};

// Method options as given, by name without "--"; a flag's value is "".
using MethodOptions = std::map<std::string, std::string>;

// Everything a placer may use. The grouping is built from the problem;
// placers assign its groups, so a returned placement honours it.
struct PlaceContext {
  const Problem& problem;
  const Grouping& grouping;
  Evaluator& evaluator;
  Budget budget;
  Rng& rng;
};

// The training a run continued: a learned placer resumed from a
// checkpoint (--resume). Counted as its training log counts them: policy
// updates, the placements they sampled, and training wall time.
struct ResumedWork {
  std::string checkpoint;           // the file resumed from
  int64_t updates_before = 0;       // in the checkpoint
  int64_t evaluations_before = 0;
  double seconds_before = 0;
  int64_t updates_total = 0;        // at the end of this run, the earlier ones included
  int64_t evaluations_total = 0;
  double seconds_total = 0;
};

// What a learned placer's policy had become when it stopped: the samples
// of its last update and its greedy decode. The answer is the best
// placement ever evaluated, which may be one lucky sample; the mean of the
// last samples is what the policy itself has learned.
struct FinalPolicy {
  int64_t updates = 0;  // in all (a resumed run's earlier ones included); 0 for a policy used as it is
  int64_t restarts = 0; // times the policy went back to its initial parameters (--restart-after); its last updates follow the last one
  int64_t samples = 0;  // placements the last update (or the untrained policy) drew; 0: none
  double mean_sample_step_s = std::numeric_limits<double>::quiet_NaN();  // over those that fit; NaN: none fit
  double fit_fraction = 0;                                               // of those samples, the share that fit
  double entropy_per_decision = std::numeric_limits<double>::quiet_NaN();  // of the policy that drew them; NaN: not computed
  std::optional<double> greedy_step_s;  // its most likely placement; absent when the budget left no evaluation for it
  bool greedy_oom = false;
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
  // Reads the method options this placer declares (PlacerInfo::options),
  // before place(); an error is one line naming the option. Placers that
  // declare none accept only an empty set.
  virtual Status configure(const MethodOptions& options) {
    if (options.empty()) return Status::ok_status();
    return invalid_input("--" + options.begin()->first + " does not apply to --method " + std::string(name()));
  }
  // What ran, as tables and JSON name it: the name, or a pipeline of
  // stages joined by '>' when the configured placer runs others around its
  // own (a learned placer with --warm-start search and --polish:
  // "local-search>rl>local-search").
  virtual std::string label() const { return std::string(name()); }
  // After place(): the earlier training this run continued, if it resumed
  // from a checkpoint.
  virtual std::optional<ResumedWork> resumed() const { return std::nullopt; }
  // After place(): a learned placer's policy at the end.
  virtual std::optional<FinalPolicy> final_policy() const { return std::nullopt; }
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
  std::vector<MethodOptionSpec> options = {};  // the method options it takes
};

// Every placer, in the order `devplace methods` lists them: place/'s own,
// then those added by register_placer (the learned placers of rl/, by
// rl::register_learned_placers).
const std::vector<PlacerInfo>& placer_registry();
// Adds a placer at the end of the registry; a name already there is an
// error. Not thread-safe: call at start-up, before any placer runs.
Status register_placer(PlacerInfo info);
// An unknown name is an error listing the known ones.
Result<std::unique_ptr<Placer>> make_placer(std::string_view name);

}  // namespace devplace
