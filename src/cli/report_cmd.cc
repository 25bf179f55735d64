// File: report_cmd.cc
// `devplace report`: the HTML report (report/report.h) of placements of one
// graph on one cluster, with training curves from CSV logs.
#include <cmath>
#include <iostream>
#include <sstream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/graph_options.h"
#include "cli/placement_source.h"
#include "cli/placer_options.h"
#include "cli/problem_source.h"
#include "cli/report_options.h"
#include "report/report.h"

namespace devplace::cli {

namespace {

const CommandSpec kSpec = {
    "devplace report --graph SRC --cluster CL --placement PL[,PL...] [--training-log CSV[,CSV...]] --out FILE\n"
    "       [--title TEXT] [--budget SECONDS] [--seed N] [--grouping paper|colocation]",
    "Writes one self-contained HTML file (no script, no network: it opens offline and can be shared)\n"
    "showing each placement PL of SRC on CL: a summary (step time, ratio to the lower bound, OOM,\n"
    "speed-up over single GPU and expert), the comparison table, a timeline of the simulated step (a\n"
    "lane per device and per link direction; forward, backward and update ops in colour, transfers on\n"
    "the links; hover for names), memory over time against each device's capacity, and per device its\n"
    "ops, busy time and bytes in and out. PL: placement files or methods (devplace methods), run with\n"
    "the budget, seed and grouping options. --training-log adds the training curves of rl runs.\n"
    "place --report and compare --report write the same report of their own runs.",
    with_placer_options(with_graph_load_options({{"graph", "SRC", "graph file or zoo:NAME[:k=v,...]", true},
                         {"cluster", "CL", "cluster JSON file or preset name", true},
                         {"placement", "PL,...", "placement files or method names, comma-separated", true},
                         {"training-log", "CSV,...", "training logs of learned runs (--training-log of place), comma-separated"},
                         {"out", "FILE", "the HTML file to write", true, true},
                         {"title", "TEXT", "the page title (default: GRAPH on CLUSTER)"}}))
};

}  // namespace

Status run_report(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  const std::string out = *args.get("out");
  if (out.empty()) return invalid_input("--out: expected a file name, got ''");
  // The training log flag names files to read here, not one to write.
  ArgList placer_argv;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--training-log") {
      ++i;
      continue;
    }
    if (argv[i].rfind("--training-log=", 0) == 0) continue;
    placer_argv.push_back(argv[i]);
  }
  DEVPLACE_ASSIGN_OR_RETURN(const Args placer_args, Args::parse(kSpec, placer_argv));
  DEVPLACE_ASSIGN_OR_RETURN(const PlacerRunOptions options, placer_run_options(placer_args));
  const std::vector<std::string> specs = split_list_option(*args.get("placement"));
  if (specs.empty()) return invalid_input("--placement: expected placement files or methods, got ''");
  DEVPLACE_RETURN_IF_ERROR(check_method_options(placement_methods(specs), options));
  DEVPLACE_ASSIGN_OR_RETURN(const GraphLoadOptions load, graph_load_options(args));
  DEVPLACE_ASSIGN_OR_RETURN(LoadedProblem loaded, load_problem(*args.get("graph"), *args.get("cluster"), load));

  report::Report rep;
  rep.title = args.get_or("title", problem_title(loaded.problem));
  report::Section section{problem_title(loaded.problem), &loaded.problem, {}};
  for (const std::string& spec : specs) {
    DEVPLACE_ASSIGN_OR_RETURN(ResolvedPlacement p, resolve_placement(spec, loaded.problem, options));
    section.entries.push_back({p.label, std::move(p.placement), "", std::nan("")});
  }
  rep.sections.push_back(std::move(section));
  for (const std::string& log : split_list_option(args.get_or("training-log", ""))) {
    DEVPLACE_ASSIGN_OR_RETURN(report::TrainingCurve curve, report::read_training_log(log));
    rep.curves.push_back(std::move(curve));
  }
  return write_report(out, rep);
}

}  // namespace devplace::cli
