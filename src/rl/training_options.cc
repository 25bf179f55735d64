// File: training_options.cc
// The learned placers' options: their specs and their parsing (see
// training_options.h).
#include "rl/training_options.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <system_error>

#include "common/progress.h"

namespace devplace::rl {

namespace {

std::optional<std::string> get(const MethodOptions& options, const std::string& name) {
  auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

// The value of --NAME as an integer in [1, max]; `fallback` when absent.
Result<int64_t> positive_int(const MethodOptions& options, const std::string& name, int64_t fallback, int64_t max) {
  const std::optional<std::string> text = get(options, name);
  if (!text) return fallback;
  int64_t n = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
  if (ec != std::errc() || ptr != text->data() + text->size() || n <= 0 || n > max)
    return invalid_input("--" + name + ": expected a positive integer (at most " + std::to_string(max) + "), got '" + *text + "'");
  return n;
}

// The value of --NAME as a file path; "" when absent. An empty value is an error.
Result<std::string> path_option(const MethodOptions& options, const std::string& name) {
  const std::optional<std::string> text = get(options, name);
  if (!text) return std::string();
  if (text->empty()) return invalid_input("--" + name + ": expected a file name, got ''");
  return *text;
}

// --NAME as a finite number that `in_range` accepts, into `out`, if given;
// otherwise an error saying it expected `what` ("a factor in (0, 1]").
Status number_option(const MethodOptions& options, const std::string& name, bool (*in_range)(double), const std::string& what,
                     double& out) {
  if (auto text = get(options, name)) {
    double x = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), x);
    if (ec != std::errc() || ptr != text->data() + text->size() || !std::isfinite(x) || !in_range(x))
      return invalid_input("--" + name + ": expected " + what + ", got '" + *text + "'");
    out = x;
  }
  return Status::ok_status();
}

// A number in [0, 100] for --NAME into `out`, if given.
Status weight_option(const MethodOptions& options, const std::string& name, double& out) {
  return number_option(options, name, [](double w) { return w >= 0 && w <= 100; }, "a number in [0, 100]", out);
}

}  // namespace

const std::vector<MethodOptionSpec>& training_option_specs() {
  static const std::vector<MethodOptionSpec> specs = {
      {"iterations", "N", "policy updates of a learned method (rl; default: from --evaluations, else its own)"},
      {"training-log", "FILE", "write a learned method's training log (CSV, one row per update)", true},
      {"checkpoint", "FILE", "save a learned method's policy to FILE (every --checkpoint-every updates, and at the end)", true},
      {"checkpoint-every", "N", "updates between checkpoints (default 10)"},
      {"resume", "FILE", "continue a learned method's training from a checkpoint"},
      {"threads", "N", "threads that evaluate a learned method's samples (default 1)"},
      {"recipe", "NAME", "a learned method's training: default (PPO-style) or paper (REINFORCE as published)"},
      {"warm-start", "FROM",
       "a first stage for a learned method: imitate search (local-search's placement) or fast (the best fast placer's); "
       "default none (renames the method, e.g. local-search>rl)"},
      {"warm-start-confidence", "P",
       "with --warm-start: the imitation stops once the target's decisions have this mean probability (default 0.99)"},
      {"polish", "N",
       "a last stage: N evaluations of local search from a learned method's best placement (default 0; renames the "
       "method, e.g. rl>local-search)"},
      {"learning-rate", "X", "a learned method's Adam learning rate (default 1e-3; paper recipe 0.01)"},
      {"lr-decay", "X", "the factor a learned method's learning rate is multiplied by every 25 updates after update 100 (default 0.95; 1: constant)"},
      {"samples", "K", "placements a learned method samples per update (default 16; paper recipe 8)"},
      {"epochs", "N", "a learned method's optimizer steps per batch of samples (default 4; paper recipe 1)"},
      {"target-kl", "X",
       "a learned method's later steps on a batch stop once its policy has moved X nats per decision (mean KL) from "
       "the one that drew the batch (default 0: off)"},
      {"elite-weight", "X", "a learned method's self-imitation of its 4 best samples so far (default 0: off)"},
      {"restart-after", "N",
       "after N evaluations without a better placement, a learned method's policy restarts from its initial "
       "parameters with a fresh optimizer and schedules; the best placement is kept (default: never)"},
      {"entropy-weight", "X",
       "a learned method's entropy bonus, halving every --entropy-half-life evaluations (default 0)"},
      {"entropy-half-life", "N", "evaluations over which a learned method's entropy bonus halves (default 1000)"},
      {"cool-to", "T",
       "a learned method's sampling temperature at the end of training: it falls geometrically from 1 over the "
       "updates or evaluations of the budget (needs --iterations or --evaluations; default 1: no cooling)"},
      {"entropy-floor", "H",
       "nats per decision below which a learned method's loss pushes its entropy back up (default 0: off)"},
      {"entropy-floor-weight", "X", "the weight of that push, per nat below the floor (default 0.01)"},
      {"risk-seeking", "F",
       "train a learned method on the best F (in (0, 1]) of each update's samples only, against the worst of them "
       "(risk-seeking policy gradient; default: rl 0, every sample, standardised; hierarchical 0.5)"},
      {"stickiness", "X", "a learned method's bonus on the logit of the previous group's device (default 0)"},
      {"neighbours", "on|off",
       "whether a learned method's decoder sees the devices of each group's placed neighbours (default on; paper "
       "recipe off)"},
      {"affinity", "X",
       "with --neighbours on: a fixed bonus on the logits of the devices of a group's placed neighbours, by bytes "
       "(default 3; paper recipe 0)"},
      {"load-input", "on|off",
       "whether a learned method's decoder sees each device's load so far (the placed groups' time and memory "
       "there) and learns how much it weighs in the logits (default off)"},
      {"speed-prior", "X",
       "rl only: a fixed bonus X log(t_min / t_d) on the logit of each device d, t_d the group's "
       "time there, so a fresh policy prefers the devices that run a group fastest (default 0: off)"},
      {"grouper-prior", "KIND",
       "hierarchical only: what a fresh grouper leans each unit to: clusters (clusters of units that exchange much "
       "data; default), order (groups of neighbouring units in topological order) or none (the paper's; paper recipe)"},
      {"policy-hidden", "N", "LSTM units per encoder direction of a learned method; the decoder has 2N (default 64)"},
      {"attention", "KIND", "a learned method's attention: multiplicative (default, Luong) or additive (Bahdanau, the paper's)"},
      {"init", "FILE",
       "rl: start from a pretrained policy (a `devplace pretrain` file, or 'pretrained' for the shipped one) instead of "
       "a random one (renames the method pretrained>rl)"},
      {"init-temperature", "T",
       "rl --init: divide the pretrained policy's logits by T while fine-tuning (default 2: it explores from a start "
       "it is nearly certain of; 1: as pretrained)"},
      {"distributed", "", "train a learned method over MPI (under mpirun): rank 0 holds the policy, the others sample"},
      {"sync", "", "with --distributed: average one gradient from every controller per update (repeatable)"},
  };
  return specs;
}

Result<TrainingRunOptions> parse_training_options(const MethodOptions& options) {
  for (const auto& [name, value] : options) {
    bool known = false;
    for (const MethodOptionSpec& spec : training_option_specs()) known = known || spec.name == name;
    if (!known) return invalid_input("--" + name + " is not an option of the learned methods");
  }
  TrainingRunOptions training;
  DEVPLACE_ASSIGN_OR_RETURN(training.iterations, positive_int(options, "iterations", 0, kMaxIterations));
  DEVPLACE_ASSIGN_OR_RETURN(training.checkpoint_every,
                            positive_int(options, "checkpoint-every", training.checkpoint_every, kMaxIterations));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t threads, positive_int(options, "threads", training.threads, kMaxThreads));
  training.threads = static_cast<int>(threads);
  DEVPLACE_ASSIGN_OR_RETURN(training.log_path, path_option(options, "training-log"));
  DEVPLACE_ASSIGN_OR_RETURN(training.checkpoint_path, path_option(options, "checkpoint"));
  DEVPLACE_ASSIGN_OR_RETURN(training.resume_path, path_option(options, "resume"));
  if (!training.resume_path.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(training.resume_path, ec))
      return invalid_input("--resume: " + training.resume_path + ": no such checkpoint file");
  }
  if (auto text = get(options, "recipe")) {
    if (*text != "default" && *text != "paper") return invalid_input("--recipe: expected 'default' or 'paper', got '" + *text + "'");
    training.paper_recipe = *text == "paper";
  }
  if (auto text = get(options, "polish")) {
    int64_t n = -1;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
    if (ec != std::errc() || ptr != text->data() + text->size() || n < 0 || n > kMaxIterations)
      return invalid_input("--polish: expected a number of evaluations (0 for none), got '" + *text + "'");
    training.polish_evaluations = n;
  }
  if (auto text = get(options, "warm-start")) {
    if (*text == "search") training.warm_start = WarmStart::kSearch;
    else if (*text == "fast") training.warm_start = WarmStart::kFast;
    else if (*text == "none") training.warm_start = WarmStart::kNone;
    else return invalid_input("--warm-start: expected 'search', 'fast' or 'none', got '" + *text + "'");
  }
  if (options.count("warm-start-confidence") && training.warm_start != WarmStart::kSearch && training.warm_start != WarmStart::kFast)
    return invalid_input("--warm-start-confidence needs --warm-start search or fast");
  DEVPLACE_RETURN_IF_ERROR(number_option(options, "warm-start-confidence", [](double p) { return p > 0 && p < 1; },
                                         "a probability in (0, 1)", training.warm_start_confidence));
  DEVPLACE_RETURN_IF_ERROR(number_option(options, "learning-rate", [](double lr) { return lr > 0 && lr <= 10; }, "a number in (0, 10]",
                                         training.learning_rate));
  DEVPLACE_RETURN_IF_ERROR(
      number_option(options, "lr-decay", [](double d) { return d > 0 && d <= 1; }, "a factor in (0, 1]", training.lr_decay));
  DEVPLACE_ASSIGN_OR_RETURN(training.samples_per_update, positive_int(options, "samples", 0, kMaxSamples));
  if (auto text = get(options, "samples"); text && training.samples_per_update < 2)
    return invalid_input("--samples: expected at least 2 (samples are compared with each other), got '" + *text + "'");
  DEVPLACE_ASSIGN_OR_RETURN(training.epochs, positive_int(options, "epochs", 0, kMaxEpochs));
  DEVPLACE_RETURN_IF_ERROR(weight_option(options, "target-kl", training.target_kl));
  DEVPLACE_RETURN_IF_ERROR(weight_option(options, "entropy-weight", training.entropy_weight));
  DEVPLACE_ASSIGN_OR_RETURN(training.entropy_half_life, positive_int(options, "entropy-half-life", 0, kMaxIterations));
  DEVPLACE_RETURN_IF_ERROR(
      number_option(options, "cool-to", [](double t) { return t >= 0.01 && t <= 1; }, "a temperature in [0.01, 1]", training.cool_to));
  DEVPLACE_RETURN_IF_ERROR(weight_option(options, "entropy-floor", training.entropy_floor));
  DEVPLACE_RETURN_IF_ERROR(weight_option(options, "entropy-floor-weight", training.entropy_floor_weight));
  DEVPLACE_RETURN_IF_ERROR(weight_option(options, "elite-weight", training.elite_weight));
  DEVPLACE_ASSIGN_OR_RETURN(training.restart_after, positive_int(options, "restart-after", 0, kMaxIterations));
  if (training.restart_after > 0 && (training.warm_start == WarmStart::kSearch || training.warm_start == WarmStart::kFast))
    return invalid_input("--restart-after and --warm-start do not go together: a restart returns to the policy before any training, "
                         "which a checkpoint does not hold after a warm start");
  DEVPLACE_RETURN_IF_ERROR(number_option(options, "risk-seeking", [](double f) { return f >= 0 && f <= 1; },
                                         "a share of the samples in [0, 1]", training.risk_seeking));
  DEVPLACE_RETURN_IF_ERROR(weight_option(options, "stickiness", training.stickiness));
  if (auto text = get(options, "neighbours")) {
    if (*text != "on" && *text != "off") return invalid_input("--neighbours: expected 'on' or 'off', got '" + *text + "'");
    training.neighbour_devices = *text == "on" ? 1 : 0;
  }
  DEVPLACE_RETURN_IF_ERROR(weight_option(options, "affinity", training.affinity));
  if (auto text = get(options, "load-input")) {
    if (*text != "on" && *text != "off") return invalid_input("--load-input: expected 'on' or 'off', got '" + *text + "'");
    training.load_input = *text == "on" ? 1 : 0;
  }
  DEVPLACE_RETURN_IF_ERROR(weight_option(options, "speed-prior", training.speed_prior));
  if (training.affinity > 0 && (training.neighbour_devices == 0 || (training.paper_recipe && training.neighbour_devices != 1)))
    return invalid_input("--affinity needs --neighbours on");
  if (auto text = get(options, "grouper-prior")) {
    if (*text != "clusters" && *text != "order" && *text != "none")
      return invalid_input("--grouper-prior: expected 'clusters', 'order' or 'none', got '" + *text + "'");
    training.grouper_prior = *text;
  }
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t hidden, positive_int(options, "policy-hidden", 0, kMaxPolicyHidden));
  training.policy_hidden = static_cast<int>(hidden);
  if (auto text = get(options, "attention")) {
    if (*text == "additive") training.attention = AttentionKind::kAdditive;
    else if (*text == "multiplicative") training.attention = AttentionKind::kMultiplicative;
    else return invalid_input("--attention: expected 'additive' or 'multiplicative', got '" + *text + "'");
  }
  if (auto text = get(options, "init")) {
    if (text->empty()) return invalid_input("--init: expected a policy file or 'pretrained'");
    std::error_code ec;
    if (*text != "pretrained" && !std::filesystem::is_regular_file(*text, ec))
      return invalid_input("--init: " + *text + ": no such policy file");
    for (const char* fixed : {"policy-hidden", "attention", "neighbours", "stickiness", "speed-prior", "load-input", "affinity", "recipe", "warm-start"}) {
      if (options.count(fixed))
        return invalid_input(std::string("--init and --") + fixed + " do not go together: the pretrained network fixes its own shape and start");
    }
    training.init_path = *text;
  }
  if (options.count("init-temperature") && training.init_path.empty()) return invalid_input("--init-temperature needs --init");
  DEVPLACE_RETURN_IF_ERROR(number_option(options, "init-temperature", [](double t) { return t >= 0.1 && t <= 100; },
                                         "a number in [0.1, 100]", training.init_temperature));
  const bool distributed = options.count("distributed") > 0;
  if (options.count("sync") && !distributed) return invalid_input("--sync needs --distributed");
  if (distributed) training.distributed = options.count("sync") ? Distribution::kSync : Distribution::kAsync;
  // The bar is for a person watching: not in logs or pipes.
  training.progress = stderr_is_terminal();
  return training;
}

const std::vector<MethodOptionSpec>& pretrained_option_specs() {
  static const std::vector<MethodOptionSpec> specs = {
      {"policy", "FILE", "the policy file --method pretrained places with (default: the shipped models/pretrained.pt)"},
      {"samples", "K",
       "placements --method pretrained samples besides its greedy one (default 63, 15 above 1,500 groups; 0: greedy only)"},
      {"threads", "N", "threads that evaluate a learned method's samples (default 1)"},
  };
  return specs;
}

Result<TrainingRunOptions> parse_pretrained_options(const MethodOptions& options) {
  for (const auto& [name, value] : options) {
    bool known = false;
    for (const MethodOptionSpec& spec : pretrained_option_specs()) known = known || spec.name == name;
    if (!known) return invalid_input("--" + name + " does not apply to --method pretrained (it trains nothing)");
  }
  TrainingRunOptions training;
  training.samples_per_update = -1;  // the placer's default, by the grouping's size
  if (auto text = get(options, "samples")) {
    int64_t n = -1;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
    if (ec != std::errc() || ptr != text->data() + text->size() || n < 0 || n > kMaxSamples)
      return invalid_input("--samples: expected a number of samples in [0, " + std::to_string(kMaxSamples) + "], got '" + *text + "'");
    training.samples_per_update = n;
  }
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t threads, positive_int(options, "threads", training.threads, kMaxThreads));
  training.threads = static_cast<int>(threads);
  if (auto text = get(options, "policy")) {
    std::error_code ec;
    if (*text != "pretrained" && !std::filesystem::is_regular_file(*text, ec))
      return invalid_input("--policy: " + *text + ": no such policy file");
    training.policy_path = *text;
  }
  return training;
}

std::string pipeline_label(std::string_view method, const TrainingRunOptions& options) {
  std::string label;
  if (options.warm_start == WarmStart::kSearch) label = "local-search>";
  if (options.warm_start == WarmStart::kFast) label = "fast>";
  if (!options.init_path.empty()) label += "pretrained>";
  label += method;
  if (options.polish_evaluations > 0) label += ">local-search";
  return label;
}

}  // namespace devplace::rl
