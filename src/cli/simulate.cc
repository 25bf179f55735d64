// File: simulate.cc
// `devplace simulate`: the simulated step time, memory and traffic of one placement.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/format.h"
#include "cli/graph_options.h"
#include "cli/placement_source.h"
#include "cli/placer_options.h"
#include "cli/problem_source.h"
#include "common/json_reader.h"
#include "io/chrome_trace.h"
#include "io/placement_file.h"
#include "io/tf_graphdef_writer.h"
#include "sim/simulator.h"

namespace devplace::cli {

namespace {

const CommandSpec kSpec = {
    "devplace simulate --graph SRC --cluster CL --placement PL [--budget SECONDS] [--evaluations N]\n"
    "       [--seed N] [--grouping paper|colocation] [--trace FILE] [--out FILE] [--json]",
    "Simulates one step of SRC on CL under placement PL and prints the step time, whether it runs out\n"
    "of memory, and per device the busy time, peak memory and bytes moved. SRC: a graph file or\n"
    "zoo:NAME[:k=v,...]; CL: a cluster JSON file or a preset (devplace cluster list); PL: a placement\n"
    "file (JSON or CSV: op name -> device name) or a method (devplace methods), e.g. single-gpu, run\n"
    "with the budget, seed and grouping options.",
    with_placer_options(with_graph_load_options({{"graph", "SRC", "graph file or zoo:NAME[:k=v,...]", true},
     {"cluster", "CL", "cluster JSON file or preset name", true},
     {"placement", "PL", "placement file or method name", true},
     {"trace", "FILE", "write a Chrome trace (open in ui.perfetto.dev or chrome://tracing)", false, true},
     {"out", "FILE", "write the placement used (.csv for CSV, .pb/.pbtxt: the GraphDef SRC placed, else JSON)", false, true},
     {"json", "", "print one JSON object"}}))
};

json::Json result_json(const Problem& problem, const SimResult& r, const std::string& label) {
  const Cluster& c = problem.cluster();
  json::Json devices = json::Json::array();
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    const DeviceStats& s = r.devices[d];
    devices.push_back({{"name", c.device(d).name},
                       {"kind", std::string(device_kind_name(c.device(d).kind))},
                       {"num_ops", s.num_ops},
                       {"busy_s", s.busy_s},
                       {"utilization", r.step_time_s > 0 ? s.busy_s / r.step_time_s : 0.0},
                       {"peak_memory_bytes", s.peak_memory_bytes},
                       {"resident_bytes", s.resident_bytes},
                       {"memory_capacity_bytes", c.device(d).memory_bytes},
                       {"oom", s.peak_memory_bytes > c.device(d).memory_bytes},
                       {"bytes_in", s.bytes_in},
                       {"bytes_out", s.bytes_out}});
  }
  json::Json links = json::Json::array();
  for (ChannelId ch = 0; ch < c.num_channels(); ++ch) {
    const ChannelStats& s = r.channels[ch];
    if (s.num_transfers == 0) continue;
    links.push_back({{"name", c.channel_name(ch)}, {"busy_s", s.busy_s}, {"bytes", s.bytes}, {"transfers", s.num_transfers}});
  }
  return {{"graph", problem.graph().name()},
          {"ops", problem.num_ops()},
          {"cluster", c.name()},
          {"placement", label},
          {"step_time_s", r.step_time_s},
          {"oom", r.oom},
          {"devices", devices},
          {"links", links}};
}

void print_table(const Problem& problem, const SimResult& r, const std::string& label) {
  const Cluster& c = problem.cluster();
  std::cout << "graph      " << problem.graph().name() << " (" << problem.num_ops() << " ops"
            << (problem.graph().has_backward() ? ", training step" : ", forward only") << ")\n"
            << "cluster    " << c.name() << " (" << c.num_devices() << " devices)\n"
            << "placement  " << label << "\n"
            << "step time  " << format_seconds(r.step_time_s) << "\n"
            << "OOM        " << (r.oom ? "yes: a device's peak memory exceeds its capacity" : "no") << "\n\n";
  std::cout << pad_right("device", 10) << pad_left("ops", 7) << pad_left("busy", 12) << pad_left("util", 7)
            << pad_left("peak memory", 14) << pad_left("capacity", 12) << pad_left("in", 12) << pad_left("out", 12) << "\n";
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    const DeviceStats& s = r.devices[d];
    char util[16];
    std::snprintf(util, sizeof util, "%.0f%%", r.step_time_s > 0 ? 100.0 * s.busy_s / r.step_time_s : 0.0);
    const bool oom = s.peak_memory_bytes > c.device(d).memory_bytes;
    std::cout << pad_right(c.device(d).name, 10) << pad_left(std::to_string(s.num_ops), 7) << pad_left(format_seconds(s.busy_s), 12)
              << pad_left(util, 7) << pad_left(format_bytes(s.peak_memory_bytes) + (oom ? "!" : ""), 14)
              << pad_left(format_bytes(c.device(d).memory_bytes), 12) << pad_left(format_bytes(s.bytes_in), 12)
              << pad_left(format_bytes(s.bytes_out), 12) << "\n";
  }
  bool header = false;
  for (ChannelId ch = 0; ch < c.num_channels(); ++ch) {
    const ChannelStats& s = r.channels[ch];
    if (s.num_transfers == 0) continue;
    if (!header) {
      std::cout << "\n" << pad_right("link", 30) << pad_left("transfers", 10) << pad_left("busy", 12) << pad_left("bytes", 12) << "\n";
      header = true;
    }
    std::cout << pad_right(c.channel_name(ch), 30) << pad_left(std::to_string(s.num_transfers), 10)
              << pad_left(format_seconds(s.busy_s), 12) << pad_left(format_bytes(s.bytes), 12) << "\n";
  }
}

}  // namespace

Status run_simulate(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  DEVPLACE_ASSIGN_OR_RETURN(const PlacerRunOptions placer_options, placer_run_options(args));
  DEVPLACE_RETURN_IF_ERROR(check_method_options(placement_methods({*args.get("placement")}), placer_options));
  DEVPLACE_ASSIGN_OR_RETURN(const GraphLoadOptions load, graph_load_options(args));
  // A GraphDef written back needs a GraphDef to start from: refused before any work.
  const bool out_graphdef = args.get("out") && is_tf_graphdef_output(*args.get("out"));
  if (out_graphdef) DEVPLACE_RETURN_IF_ERROR(check_tf_graphdef_output("--out", *args.get("out"), *args.get("graph")));
  DEVPLACE_ASSIGN_OR_RETURN(LoadedProblem loaded, load_problem(*args.get("graph"), *args.get("cluster"), load));
  const Problem& problem = loaded.problem;
  DEVPLACE_ASSIGN_OR_RETURN(ResolvedPlacement pl, resolve_placement(*args.get("placement"), problem, placer_options));

  Simulator sim(problem);
  SimOptions options;
  options.record_timeline = args.get("trace").has_value();
  DEVPLACE_RETURN_IF_ERROR(sim.run(pl.placement, options));
  const SimResult& r = sim.result();

  if (args.flag("json")) {
    std::cout << result_json(problem, r, pl.label).dump(2) << "\n";
  } else {
    print_table(problem, r, pl.label);
  }
  if (auto out = args.get("out")) {
    DEVPLACE_RETURN_IF_ERROR(out_graphdef ? write_tf_graphdef_placement(*out, *args.get("graph"), problem, pl.placement)
                                          : write_placement_file(*out, problem, pl.placement));
  }
  if (auto trace = args.get("trace")) {
    DEVPLACE_RETURN_IF_ERROR(write_chrome_trace(*trace, problem, r));
    if (!args.flag("json")) std::cout << "\ntrace written to " << *trace << " (open in ui.perfetto.dev or chrome://tracing)\n";
  }
  return Status::ok_status();
}

}  // namespace devplace::cli
