// File: placer_options.cc
// --budget, --evaluations, --seed, --grouping and the training options of the
// learned placers (see placer_options.h).
#include "cli/placer_options.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "common/progress.h"

namespace devplace::cli {

namespace {

// The value of --NAME as an integer in [1, max]; `fallback` when absent.
Result<int64_t> positive_int(const Args& args, const std::string& name, int64_t fallback, int64_t max) {
  const std::optional<std::string> text = args.get(name);
  if (!text) return fallback;
  int64_t n = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
  if (ec != std::errc() || ptr != text->data() + text->size() || n <= 0 || n > max)
    return invalid_input("--" + name + ": expected a positive integer (at most " + std::to_string(max) + "), got '" + *text + "'");
  return n;
}

// The value of --NAME as a file path; "" when absent. An empty value is an error.
Result<std::string> path_option(const Args& args, const std::string& name) {
  const std::optional<std::string> text = args.get(name);
  if (!text) return std::string();
  if (text->empty()) return invalid_input("--" + name + ": expected a file name, got ''");
  return *text;
}

// A number in [0, 100] for --NAME into `out`, if given.
Status weight_option(const Args& args, const std::string& name, double& out) {
  if (auto text = args.get(name)) {
    double w = -1;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), w);
    if (ec != std::errc() || ptr != text->data() + text->size() || !std::isfinite(w) || w < 0 || w > 100)
      return invalid_input("--" + name + ": expected a number in [0, 100], got '" + *text + "'");
    out = w;
  }
  return Status::ok_status();
}

}  // namespace

std::vector<OptionSpec> with_placer_options(std::vector<OptionSpec> options) {
  options.push_back({"budget", "SECONDS", "search time per method (a time limit: results may vary between runs)"});
  options.push_back({"evaluations", "N", "most simulated steps per method (default: the method's own, 5000 for local-search)"});
  options.push_back({"seed", "N", "seed for randomized methods (default 1)"});
  options.push_back({"grouping", "KIND", "what placers assign: paper (merged chains, default) or colocation"});
  options.push_back({"iterations", "N", "policy updates of a learned method (rl; default: from --evaluations, else its own)"});
  options.push_back({"training-log", "FILE", "write a learned method's training log (CSV, one row per update)"});
  options.push_back({"checkpoint", "FILE", "save a learned method's policy to FILE (every --checkpoint-every updates, and at the end)"});
  options.push_back({"checkpoint-every", "N", "updates between checkpoints (default 10)"});
  options.push_back({"resume", "FILE", "continue a learned method's training from a checkpoint"});
  options.push_back({"threads", "N", "threads that evaluate a learned method's samples (default 1)"});
  options.push_back({"recipe", "NAME", "a learned method's training: default (PPO-style, entropy bonus) or paper (REINFORCE as published)"});
  options.push_back({"warm-start", "FROM", "a first stage for a learned method: imitate search (local-search's placement) or fast (the best fast placer's); default none (renames the method, e.g. local-search>rl)"});
  options.push_back({"polish", "N", "a last stage: N evaluations of local search from a learned method's best placement (default 0; renames the method, e.g. rl>local-search)"});
  options.push_back({"learning-rate", "X", "a learned method's Adam learning rate (default 1e-3; paper recipe 0.01)"});
  options.push_back({"samples", "K", "placements a learned method samples per update (default 16; paper recipe 8)"});
  options.push_back({"epochs", "N", "a learned method's optimizer steps per batch of samples (default 4; paper recipe 1)"});
  options.push_back({"elite-weight", "X", "a learned method's self-imitation of its 4 best samples so far (default 0: off)"});
  options.push_back({"entropy-weight", "X", "a learned method's entropy bonus, halving every 1000 evaluations (default: rl 0, hierarchical 0.01; paper recipe 0)"});
  options.push_back({"stickiness", "X", "a learned method's bonus on the logit of the previous group's device (default 0)"});
  options.push_back({"neighbours", "on|off", "whether a learned method's decoder sees the devices of each group's placed neighbours (default on; paper recipe off)"});
  options.push_back({"affinity", "X", "with --neighbours on: a fixed bonus on the logits of the devices of a group's placed neighbours, by bytes (default 3; paper recipe 0)"});
  options.push_back({"policy-hidden", "N", "LSTM units per encoder direction of a learned method; the decoder has 2N (default 64)"});
  options.push_back({"attention", "KIND", "a learned method's attention: multiplicative (default, Luong) or additive (Bahdanau, the paper's)"});
  options.push_back({"distributed", "", "train a learned method over MPI (under mpirun): rank 0 holds the policy, the others sample"});
  options.push_back({"sync", "", "with --distributed: average one gradient from every controller per update (repeatable)"});
  return options;
}

Result<PlacerRunOptions> placer_run_options(const Args& args) {
  PlacerRunOptions options;
  if (auto text = args.get("budget")) {
    double seconds = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), seconds);
    if (ec != std::errc() || ptr != text->data() + text->size() || !std::isfinite(seconds) || seconds <= 0)
      return invalid_input("--budget: expected a positive number of seconds, got '" + *text + "'");
    options.budget.seconds = seconds;
  }
  if (auto text = args.get("evaluations")) {
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
    if (ec != std::errc() || ptr != text->data() + text->size() || n <= 0)
      return invalid_input("--evaluations: expected a positive integer, got '" + *text + "'");
    options.budget.evaluations = n;
  }
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t seed, args.get_int_or("seed", 1));
  options.seed = static_cast<uint64_t>(seed);
  if (auto text = args.get("grouping")) {
    Result<GroupingKind> kind = parse_grouping_kind(*text);
    if (!kind.ok()) return kind.error().with_prefix("--grouping");
    options.grouping.kind = kind.value();
  }
  TrainingRunOptions& training = options.training;
  DEVPLACE_ASSIGN_OR_RETURN(training.iterations, positive_int(args, "iterations", 0, kMaxIterations));
  DEVPLACE_ASSIGN_OR_RETURN(training.checkpoint_every,
                            positive_int(args, "checkpoint-every", training.checkpoint_every, kMaxIterations));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t threads, positive_int(args, "threads", training.threads, kMaxThreads));
  training.threads = static_cast<int>(threads);
  DEVPLACE_ASSIGN_OR_RETURN(training.log_path, path_option(args, "training-log"));
  DEVPLACE_ASSIGN_OR_RETURN(training.checkpoint_path, path_option(args, "checkpoint"));
  DEVPLACE_ASSIGN_OR_RETURN(training.resume_path, path_option(args, "resume"));
  if (!training.resume_path.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(training.resume_path, ec))
      return invalid_input("--resume: " + training.resume_path + ": no such checkpoint file");
  }
  if (auto text = args.get("recipe")) {
    if (*text != "default" && *text != "paper") return invalid_input("--recipe: expected 'default' or 'paper', got '" + *text + "'");
    training.paper_recipe = *text == "paper";
  }
  if (auto text = args.get("polish")) {
    int64_t n = -1;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
    if (ec != std::errc() || ptr != text->data() + text->size() || n < 0 || n > kMaxIterations)
      return invalid_input("--polish: expected a number of evaluations (0 for none), got '" + *text + "'");
    training.polish_evaluations = n;
  }
  if (auto text = args.get("warm-start")) {
    if (*text == "search") training.warm_start = WarmStart::kSearch;
    else if (*text == "fast") training.warm_start = WarmStart::kFast;
    else if (*text == "none") training.warm_start = WarmStart::kNone;
    else return invalid_input("--warm-start: expected 'search', 'fast' or 'none', got '" + *text + "'");
  }
  if (auto text = args.get("learning-rate")) {
    double lr = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), lr);
    if (ec != std::errc() || ptr != text->data() + text->size() || !std::isfinite(lr) || lr <= 0 || lr > 10)
      return invalid_input("--learning-rate: expected a number in (0, 10], got '" + *text + "'");
    training.learning_rate = lr;
  }
  DEVPLACE_ASSIGN_OR_RETURN(training.samples_per_update, positive_int(args, "samples", 0, kMaxSamples));
  if (args.get("samples") && training.samples_per_update < 2) return invalid_input("--samples: expected at least 2 (samples are compared with each other), got '" + *args.get("samples") + "'");
  DEVPLACE_ASSIGN_OR_RETURN(training.epochs, positive_int(args, "epochs", 0, kMaxEpochs));
  DEVPLACE_RETURN_IF_ERROR(weight_option(args, "entropy-weight", training.entropy_weight));
  DEVPLACE_RETURN_IF_ERROR(weight_option(args, "elite-weight", training.elite_weight));
  DEVPLACE_RETURN_IF_ERROR(weight_option(args, "stickiness", training.stickiness));
  if (auto text = args.get("neighbours")) {
    if (*text != "on" && *text != "off") return invalid_input("--neighbours: expected 'on' or 'off', got '" + *text + "'");
    training.neighbour_devices = *text == "on" ? 1 : 0;
  }
  DEVPLACE_RETURN_IF_ERROR(weight_option(args, "affinity", training.affinity));
  if (training.affinity > 0 && (training.neighbour_devices == 0 || (training.paper_recipe && training.neighbour_devices != 1)))
    return invalid_input("--affinity needs --neighbours on");
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t hidden, positive_int(args, "policy-hidden", 0, kMaxPolicyHidden));
  training.policy_hidden = static_cast<int>(hidden);
  if (auto text = args.get("attention")) {
    if (*text == "additive") training.attention = AttentionKind::kAdditive;
    else if (*text == "multiplicative") training.attention = AttentionKind::kMultiplicative;
    else return invalid_input("--attention: expected 'additive' or 'multiplicative', got '" + *text + "'");
  }
  if (args.flag("sync") && !args.flag("distributed")) return invalid_input("--sync needs --distributed");
  if (args.flag("distributed")) training.distributed = args.flag("sync") ? Distribution::kSync : Distribution::kAsync;
  // The bar is for a person watching: not in logs or pipes.
  training.progress = stderr_is_terminal();
  return options;
}

}  // namespace devplace::cli
