// File: main.cc
// devplace's entry point: dispatches the subcommand and maps errors to exit
// codes: 0 success, 1 internal error, 2 bad input or usage, 130 stopped by
// Ctrl-C (a command that catches it, as place does while a learned method
// trains, prints its result so far first). Everything is caught here, so no
// input makes devplace crash.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/format.h"
#include "common/interrupt.h"
#include "rl/rl_library.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as a shell reports a Ctrl-C kill

struct Command {
  const char* name;
  const char* summary;
  devplace::Status (*run)(const devplace::cli::ArgList&);
};

const Command kCommands[] = {
    {"inspect", "print a graph's ops, edges, FLOPs, parameters and op types", &devplace::cli::run_inspect},
    {"simulate", "simulate one training step of a placed graph on a cluster", &devplace::cli::run_simulate},
    {"place", "run one placement method and compare its step time with the lower bound", &devplace::cli::run_place},
    {"compare", "run several methods side by side, or the paper's Table 1 (--suite paper)", &devplace::cli::run_compare},
    {"report", "write an HTML report of placements: tables, timeline, memory, training curves", &devplace::cli::run_report},
    {"pretrain", "train one placement policy over many graphs, for --method pretrained and --init", &devplace::cli::run_pretrain},
    {"calibrate", "measure a few placements and compare them with the simulator (error, rank correlation)",
     &devplace::cli::run_calibrate},
    {"cluster", "list the cluster presets or show one (cluster list | cluster show NAME)", &devplace::cli::run_cluster},
    {"methods", "list the placement methods", &devplace::cli::run_methods},
    {"zoo", "list the built-in models (zoo list)", &devplace::cli::run_zoo},
    {"convert", "write any graph source as a devplace graph file (JSON, or binary .dpg)", &devplace::cli::run_convert},
};

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "usage: devplace COMMAND [options]\n\n"
               "devplace decides which device each op of a neural-network training graph runs on,\n"
               "and simulates one training step of a placement.\n\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
  std::fprintf(out, "\n'devplace COMMAND --help' describes a command.\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(true);
  try {
    devplace::register_learned_placers();
    if (argc < 2) {
      print_usage(stderr);
      return kExitBadInput;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
      print_usage(stdout);
      return kExitOk;
    }
    for (const Command& c : kCommands) {
      if (name != c.name) continue;
      const devplace::Status s = c.run(devplace::cli::ArgList(argv + 2, argv + argc));
      std::cout.flush();
      // The flag is set only where a command caught Ctrl-C (interrupt.h).
      const bool interrupted = devplace::interrupt_requested();
      if (s.ok()) return interrupted ? kExitInterrupted : kExitOk;
      // One line, however long or strange the input it quotes.
      std::fprintf(stderr, "devplace: %s\n", devplace::one_line(s.error().message()).c_str());
      if (interrupted) return kExitInterrupted;
      return s.error().is_user_error() ? kExitBadInput : kExitInternal;
    }
    std::fprintf(stderr, "devplace: unknown command '%s' (see devplace --help)\n", name.c_str());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::cout.flush();
    std::fprintf(stderr, "devplace: internal error: out of memory\n");
    return kExitInternal;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::fprintf(stderr, "devplace: internal error: %s\n", e.what());
    return kExitInternal;
  }
}
