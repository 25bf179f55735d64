// File: pretrain_cmd.cc
// `devplace pretrain`: trains one portable policy over a corpus of graphs
// and clusters (rl/pretrain.h) and writes it as a policy file for
// --method pretrained and --init.
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/pretrain_corpus.h"
#include "cli/problem_source.h"
#include "common/format.h"
#include "common/progress.h"
#include "rl/rl_library.h"

namespace devplace::cli {

namespace {

const CommandSpec kSpec = {
    "devplace pretrain --out FILE [--corpus train|held-out|tiny|FILE] [--updates N] [--samples K] [--epochs N]\n"
    "       [--learning-rate X] [--entropy-weight X] [--entropy-half-life N] [--policy-hidden N]\n"
    "       [--encoder sequence|graph] [--graph-rounds N] [--seed N]"
    " [--threads N] [--checkpoint FILE] [--checkpoint-every N] [--resume FILE] [--average-from N] [--training-log FILE] [--distributed] [--list]",
    "Trains one portable placement policy over a corpus of graphs and clusters and writes it to FILE, for\n"
    "--method pretrained (place a new graph at once) and --method rl --init FILE (fine-tune). Each update\n"
    "samples K placements of the corpus's next problem, simulates them and takes PPO-style steps on\n"
    "advantages standardised within the batch. The built-in corpus 'train' holds the training families\n"
    "(resnet, transformer, layered, recurrent, mobilenet, alexnet, vgg, squeezenet: zoo models, generated\n"
    "graphs, ONNX files and PipeDream profiles); 'held-out' the paper's (rnnlm, nmt, inception), never trained\n"
    "on. A corpus file has one 'GRAPH CLUSTER FAMILY [training]' per line. At the end it prints, per problem, the fast\n"
    "baseline (the best of the paper's baselines and the fast placers) and the policy's greedy and\n"
    "best-of-K placements. Ctrl-C stops it and writes the checkpoint and FILE. --list prints the corpus.\n"
    "--distributed (under mpirun -np N): every rank trains on its own problem each update and the ranks\n"
    "average their gradients, so an update sees N problems; rank 0 alone writes and prints.",
    {{"out", "FILE", "the policy file to write (at the end, and at Ctrl-C)", false, true},
     {"corpus", "NAME", "train (default), held-out, tiny, or a corpus file"},
     {"updates", "N", "policy updates in all, one problem each (default 2000); with --resume, the total"},
     {"samples", "K", "placements sampled per update (default 16)"},
     {"epochs", "N", "optimizer steps per batch (default 4)"},
     {"learning-rate", "X", "Adam's learning rate (default 1e-3)"},
     {"entropy-weight", "X", "the entropy bonus at the start (default 0.01)"},
     {"entropy-half-life", "N", "updates over which the entropy bonus halves (default 1000)"},
     {"policy-hidden", "N", "LSTM units per encoder direction (default 64)"},
     {"encoder", "KIND", "sequence (default): a BiLSTM over the groups in topological order; graph: message passing over the group graph"},
     {"graph-rounds", "N", "the graph encoder's rounds of message passing (default 4)"},
     {"seed", "N", "seed of the initial weights, the corpus order and the samples (default 1)"},
     {"threads", "N", "threads that simulate an update's samples (default 1)"},
     {"checkpoint", "FILE", "write a checkpoint (the policy with its optimizer) every --checkpoint-every updates", false, true},
     {"checkpoint-every", "N", "updates between checkpoints (default 50)"},
     {"resume", "FILE", "continue from a checkpoint"},
     {"average-from", "N", "write the mean of the weights after each update past N (weight averaging; training unchanged)"},
     {"training-log", "FILE", "write the training log (CSV, one row per update)", false, true},
     {"distributed", "", "under mpirun -np N: N ranks each train on their own problem per update and average gradients"},
     {"list", "", "print the corpus (graph, cluster, family) and exit"}}};

Result<double> positive_double(const Args& args, const std::string& name, double fallback, bool allow_zero) {
  const std::optional<std::string> text = args.get(name);
  if (!text) return fallback;
  char* end = nullptr;
  const double v = std::strtod(text->c_str(), &end);
  if (end == text->c_str() || *end != '\0' || !std::isfinite(v) || v < 0 || (!allow_zero && v == 0) || v > 10)
    return invalid_input("--" + name + ": expected a number in " + (allow_zero ? "[0, 10]" : "(0, 10]") + ", got '" + *text + "'");
  return v;
}

Result<int64_t> bounded_int(const Args& args, const std::string& name, int64_t fallback, int64_t lo, int64_t hi) {
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t v, args.get_int_or(name, fallback));
  if (v < lo || v > hi)
    return invalid_input("--" + name + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                         std::to_string(v));
  return v;
}

std::string ms_text(double s) { return std::isfinite(s) ? format_seconds(s) : "OOM"; }

}  // namespace

Status run_pretrain(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  DEVPLACE_ASSIGN_OR_RETURN(const std::vector<CorpusEntry> entries, corpus_entries(args.get_or("corpus", "train")));
  if (args.flag("list")) {
    for (const CorpusEntry& e : entries) std::cout << pad_right(e.family, 12) << ' ' << pad_right(e.cluster, 8) << ' ' << e.graph << (e.training ? " (training step)" : "") << '\n';
    return Status::ok_status();
  }
  if (!args.get("out")) return invalid_input("--out FILE is required (the policy file to write)");
  rl::PretrainOptions options;
  options.out = *args.get("out");
  options.checkpoint = args.get_or("checkpoint", "");
  options.log = args.get_or("training-log", "");
  options.resume = args.get_or("resume", "");
  if (!options.resume.empty() && !std::filesystem::is_regular_file(options.resume))
    return invalid_input("--resume: " + options.resume + ": no such checkpoint file");
  DEVPLACE_ASSIGN_OR_RETURN(options.updates, bounded_int(args, "updates", options.updates, 1, 100'000'000));
  DEVPLACE_ASSIGN_OR_RETURN(options.samples, bounded_int(args, "samples", options.samples, 2, 4096));
  DEVPLACE_ASSIGN_OR_RETURN(options.epochs, bounded_int(args, "epochs", options.epochs, 1, 100));
  DEVPLACE_ASSIGN_OR_RETURN(options.entropy_half_life, bounded_int(args, "entropy-half-life", options.entropy_half_life, 1, 100'000'000));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t hidden, bounded_int(args, "policy-hidden", options.hidden, 1, 4096));
  options.hidden = static_cast<int>(hidden);
  const std::string encoder = args.get_or("encoder", "sequence");
  if (encoder != "sequence" && encoder != "graph") return invalid_input("--encoder: expected sequence or graph, got '" + encoder + "'");
  if (args.get("graph-rounds") && encoder != "graph") return invalid_input("--graph-rounds: only with --encoder graph");
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t rounds, bounded_int(args, "graph-rounds", 4, 1, rl::kMaxGraphRounds));
  if (encoder == "graph") options.graph_rounds = static_cast<int>(rounds);
  if (!options.resume.empty() && (args.get("encoder") || args.get("policy-hidden")))
    return invalid_input("--resume: the checkpoint fixes the network; drop --encoder, --graph-rounds and --policy-hidden");
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t seed, bounded_int(args, "seed", 1, 0, INT64_MAX));
  options.seed = static_cast<uint64_t>(seed);
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t threads, bounded_int(args, "threads", 1, 1, 1024));
  options.threads = static_cast<int>(threads);
  if (args.get("average-from")) {
    DEVPLACE_ASSIGN_OR_RETURN(options.average_from, bounded_int(args, "average-from", 0, 0, options.updates - 1));
  }
  DEVPLACE_ASSIGN_OR_RETURN(options.checkpoint_every, bounded_int(args, "checkpoint-every", options.checkpoint_every, 1, 100'000'000));
  DEVPLACE_ASSIGN_OR_RETURN(options.learning_rate, positive_double(args, "learning-rate", options.learning_rate, false));
  DEVPLACE_ASSIGN_OR_RETURN(options.entropy_weight, positive_double(args, "entropy-weight", options.entropy_weight, true));
  options.progress = stderr_is_terminal();
  if (args.flag("distributed")) {
    const Status mpi = start_mpi();
    if (!mpi.ok()) return mpi.error().with_prefix("--distributed");
    options.distributed = true;
  }
  const bool leader = mpi_rank() == 0;

  // Load every problem before any training, so a bad line fails at once.
  std::vector<LoadedProblem> loaded;
  loaded.reserve(entries.size());
  std::vector<rl::PretrainProblem> corpus;
  for (size_t i = 0; i < entries.size(); ++i) {
    const CorpusEntry& e = entries[i];
    GraphLoadOptions load;
    load.training = e.training;
    Result<LoadedProblem> p = load_problem(e.source(), e.cluster, load);
    if (!p.ok()) return p.error().with_prefix("corpus problem " + std::to_string(i + 1) + " (" + e.graph + " on " + e.cluster + ")");
    loaded.push_back(std::move(p).value());
  }
  std::set<std::string> families;
  for (size_t i = 0; i < entries.size(); ++i) {
    corpus.push_back({entries[i].graph + (entries[i].training ? " (training step)" : "") + " on " + entries[i].cluster, entries[i].family,
                      &loaded[i].problem});
    families.insert(entries[i].family);
  }
  std::string family_list;
  for (const std::string& f : families) family_list += (family_list.empty() ? "" : ", ") + f;
  if (leader) std::cerr << "pretrain: " << corpus.size() << " problems of the families " << family_list << ", " << options.updates
            << " updates of " << options.samples << " samples" << (options.distributed ? " per rank, over " + std::to_string(mpi_size()) + " ranks" : "")
            << "\n";
  DEVPLACE_ASSIGN_OR_RETURN(const RlLibraryApi* api, rl_library());
  DEVPLACE_ASSIGN_OR_RETURN(const rl::PretrainSummary summary, api->pretrain(corpus, options));
  if (!leader) return Status::ok_status();

  std::cout << "problem" << std::string(52, ' ') << "  fast        greedy      best-of-" << options.samples << "   best/fast\n";
  double log_sum = 0;
  int counted = 0;
  for (const rl::PretrainSummaryRow& r : summary.rows) {
    const double ratio = r.best_s / r.reference_s;
    if (std::isfinite(ratio)) {
      log_sum += std::log(ratio);
      ++counted;
    }
    std::cout << pad_right(r.name, 59) << "  " << pad_right(ms_text(r.reference_s), 10) << "  " << pad_right(ms_text(r.greedy_s), 10)
              << "  " << pad_right(ms_text(r.best_s), 10) << "  " << format_ratio(ratio) << '\n';
  }
  std::cout << "geometric mean best/fast: " << (counted > 0 ? format_ratio(std::exp(log_sum / counted)) : std::string("-")) << " over "
            << counted << " problems; " << summary.updates << " updates in all, " << summary.evaluations << " evaluations and "
            << format_seconds(summary.seconds) << " in this run; policy written to " << options.out
            << (summary.averaged > 0 ? " (the mean of the weights after each of the last " + std::to_string(summary.averaged) + " updates)" : std::string())
            << '\n';
  return Status::ok_status();
}

}  // namespace devplace::cli
