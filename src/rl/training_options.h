// File: training_options.h
// The learned placers' own options (--iterations, --checkpoint, --recipe,
// ...): declared, documented and parsed here, so that the generic placer
// interface (place/placer.h) and the CLI know nothing of them. The CLI
// accepts these flags because the learned placers declare them in their
// registry entries (rl_library.h) and hands them over as MethodOptions.
//
// No LibTorch here: --help and a bad flag are answered without loading
// libdevplace_rl.so.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "place/placer.h"

namespace devplace::rl {

// How a learned placer's training is spread over MPI ranks (distributed.h).
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

// rl --init's default --init-temperature. The pretrained policy starts
// nearly certain (entropy 0.00-0.05 per decision on the paper's rows), so
// plain REINFORCE has little to compare and settles where it started; at 2,
// fine-tuning beat T = 1 after 4,000 evaluations on 5 of the 6 paper rows
// and rl from a random policy on all 6 (docs/rl.md, "Fine-tuning").
inline constexpr double kInitTemperature = 2.0;

// One learned run's settings; the defaults are "not given" (the method's
// or the recipe's own value applies).
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
  double warm_start_confidence = 0;  // the imitation stops at this mean probability per decision; 0: the recipe's
  double learning_rate = 0;        // REINFORCE's Adam; 0: the method's default
  double lr_decay = 0;             // the factor the learning rate is multiplied by every 25 updates after update 100; 0: the recipe's
  int64_t samples_per_update = 0;  // K; 0: the recipe's
  int64_t epochs = 0;              // optimizer steps per batch; 0: the recipe's
  double target_kl = -1;           // a batch's later steps stop past this KL per decision; < 0: the recipe's
  double entropy_weight = -1;      // entropy bonus at the start; < 0: the recipe's
  int64_t entropy_half_life = 0;   // evaluations over which the bonus halves; 0: the recipe's
  double cool_to = 1.0;            // the sampling temperature at the end of the run (falls from 1); 1: no cooling
  double entropy_floor = -1;       // nats per decision the loss keeps the entropy above; < 0: the recipe's
  double entropy_floor_weight = -1; // the weight of that floor's hinge; < 0: the recipe's
  double risk_seeking = -1;        // the share of each batch's best samples trained on; < 0: the recipe's
  double elite_weight = -1;        // self-imitation of the policy's best samples; < 0: the recipe's
  int64_t restart_after = 0;       // evaluations without a better placement after which the policy restarts; 0: never
  double stickiness = -1;          // the decoder's bonus for the previous group's device; < 0: the default
  int neighbour_devices = -1;      // the decoder sees its placed neighbours' devices: 1 on, 0 off, -1 the recipe's
  double speed_prior = -1;         // rl: a fixed bonus X log(speed share) on each group's devices; < 0: the default
  double affinity = -1;            // a fixed bonus on the logits from those devices; < 0: the default
  int load_input = -1;             // the decoder sees the devices' loads so far: 1 on, 0 off, -1 the default
  std::string grouper_prior;       // hierarchical: "order", "clusters" or "none"; "": the default
  int policy_hidden = 0;           // LSTM units per encoder direction (the decoder has twice); 0: the default
  AttentionKind attention = AttentionKind::kDefault;
  Distribution distributed = Distribution::kNone;  // --distributed [--sync], under mpirun
  // rl: start from a pretrained portable policy (portable_policy.h): a
  // policy file, or "pretrained" for the shipped one. "": a fresh seq2seq.
  std::string init_path;
  double init_temperature = kInitTemperature;  // --init-temperature: the pretrained logits divided by it while fine-tuning
  // pretrained: the policy file it places with; "" or "pretrained": the shipped one.
  std::string policy_path;
};

// The options rl and hierarchical take, in the order --help lists them.
const std::vector<MethodOptionSpec>& training_option_specs();

// Reads them: --iterations N, --checkpoint-every N (default 10) and
// --threads N (default 1), each > 0; --training-log FILE, --checkpoint
// FILE, --resume FILE (which must exist); --recipe default|paper;
// --warm-start search|fast|none; --polish N; --learning-rate X;
// --lr-decay X in (0, 1];
// --samples K (>= 2); --epochs N; --target-kl X in [0, 100]; --cool-to T in [0.01, 1];
// --restart-after N; --entropy-weight, --elite-weight,
// --stickiness, --affinity and --speed-prior X in [0, 100];
// --risk-seeking F in [0, 1]; --neighbours on|off;
// --policy-hidden N; --attention additive|multiplicative; --distributed
// [--sync]. The progress bar is on when stderr is a terminal. An error is
// one line naming the flag (exit code 2). Names it does not know are
// errors too.
Result<TrainingRunOptions> parse_training_options(const MethodOptions& options);

// The options --method pretrained takes (--policy FILE, --samples K,
// --threads N), and their parser: samples_per_update is the number of
// samples drawn besides the greedy decode (0: the greedy decode alone;
// -1, the default: kPretrainedSamples, or kPretrainedSamplesLarge above
// kPretrainedLargeGroups groups, where the decode's attention, groups^2 x
// samples, would take seconds).
const std::vector<MethodOptionSpec>& pretrained_option_specs();
Result<TrainingRunOptions> parse_pretrained_options(const MethodOptions& options);
inline constexpr int64_t kPretrainedSamples = 63;
inline constexpr int64_t kPretrainedSamplesLarge = 15;
inline constexpr int64_t kPretrainedLargeGroups = 1500;

// The stages a learned method runs with these options, joined by '>': the
// warm start's source (local-search, or fast for the best fast placer),
// the method (after "pretrained>" when it starts from a pretrained policy),
// and local-search for a polish ("local-search>rl>local-search").
std::string pipeline_label(std::string_view method, const TrainingRunOptions& options);

// The largest values accepted.
inline constexpr int64_t kMaxIterations = 100'000'000;
inline constexpr int64_t kMaxThreads = 1024;
inline constexpr int64_t kMaxPolicyHidden = 4096;
inline constexpr int64_t kMaxSamples = 4096;
inline constexpr int64_t kMaxEpochs = 100;

}  // namespace devplace::rl
