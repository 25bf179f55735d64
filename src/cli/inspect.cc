// File: inspect.cc
// `devplace inspect`: what a graph holds.
#include <algorithm>
#include <iostream>
#include <map>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/format.h"
#include "cli/graph_options.h"
#include "common/json_reader.h"
#include "io/graph_source.h"

namespace devplace::cli {

namespace {

const CommandSpec kSpec = {
    "devplace inspect --graph SRC [--training] [--json]",
    "Prints a graph's size: ops, edges, tensors, FLOPs, parameter bytes, co-location groups, ops per\n"
    "phase and the most common op types. SRC is a graph file (devplace JSON, an ONNX model .onnx, a\n"
    "PipeDream profile graph.txt, or a TensorFlow GraphDef .pb/.pbtxt; docs/formats.md) or zoo:NAME[:k=v,...].",
    with_graph_load_options({{"graph", "SRC", "graph file (devplace JSON, .onnx, PipeDream graph.txt, TensorFlow .pb/.pbtxt) or zoo:NAME[:k=v,...]", true},
     {"json", "", "print one JSON object"}})
};

}  // namespace

Status run_inspect(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  DEVPLACE_ASSIGN_OR_RETURN(const GraphLoadOptions load, graph_load_options(args));
  DEVPLACE_ASSIGN_OR_RETURN(Graph g, load_graph(*args.get("graph"), load));

  std::map<std::string, int> type_counts;
  std::map<std::string, int> phase_counts;
  int64_t tensor_bytes = 0, optimizer_bytes = 0;
  for (const Op& op : g.ops()) {
    ++type_counts[op.type];
    ++phase_counts[std::string(op_phase_name(op.phase))];
    optimizer_bytes += op.optimizer_state_bytes;
  }
  for (const Tensor& t : g.tensors()) tensor_bytes += t.bytes;
  // Per device kind: how many ops carry a measured time, and where it was
  // measured (the other devices of that kind get it scaled).
  json::Json times = json::Json::object();
  std::string times_text;
  for (DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kGpu}) {
    int measured = 0;
    for (const Op& op : g.ops()) measured += op.has_measured_time(kind) && op.has_kernel(kind);
    const MeasuredOn& on = g.measured_on(kind);
    const std::string name(device_kind_name(kind));
    times[name] = {{"measured_ops", measured}, {"measured_on", on.known() ? json::Json(on.model) : json::Json(nullptr)}};
    if (measured == 0) continue;
    times_text += std::string(times_text.empty() ? "" : "; ") + name + ": " + std::to_string(measured) + " ops measured" +
                  (on.known() ? " on " + on.model + ", scaled to other " + name + "s by the roofline ratio"
                              : ", used as they are on every " + name);
  }
  std::vector<std::pair<std::string, int>> types(type_counts.begin(), type_counts.end());
  std::stable_sort(types.begin(), types.end(), [](const auto& a, const auto& b) { return a.second > b.second; });

  if (args.flag("json")) {
    json::Json j = {{"name", g.name()},
                    {"ops", g.num_ops()},
                    {"edges", g.num_edges()},
                    {"tensors", g.num_tensors()},
                    {"groups", g.num_groups()},
                    {"flops", g.total_flops()},
                    {"parameter_bytes", g.total_parameter_bytes()},
                    {"optimizer_state_bytes", optimizer_bytes},
                    {"tensor_bytes", tensor_bytes},
                    {"training_step", g.has_backward()},
                    {"phases", phase_counts},
                    {"times", times},
                    {"op_types", type_counts}};
    std::cout << j.dump(2) << "\n";
    return Status::ok_status();
  }
  std::cout << "graph            " << g.name() << (g.has_backward() ? " (training step)" : " (forward only)") << "\n"
            << "ops              " << g.num_ops() << "  (";
  bool first = true;
  for (const auto& [phase, n] : phase_counts) {
    std::cout << (first ? "" : ", ") << n << " " << phase;
    first = false;
  }
  std::cout << ")\n"
            << "edges            " << g.num_edges() << "\n"
            << "tensors          " << g.num_tensors() << "  (" << format_bytes(tensor_bytes) << " in all)\n"
            << "groups           " << g.num_groups() << " co-location groups\n"
            << "flops            " << format_flops(g.total_flops()) << "\n"
            << "parameters       " << format_bytes(g.total_parameter_bytes()) << "\n"
            << "optimizer state  " << format_bytes(optimizer_bytes) << "\n"
            << "times            " << (times_text.empty() ? "estimated from FLOPs and bytes (roofline) on every device" : times_text + "; the others estimated (roofline)") << "\n"
            << "op types         ";
  for (size_t i = 0; i < types.size() && i < 12; ++i) std::cout << (i ? ", " : "") << types[i].first << " " << types[i].second;
  if (types.size() > 12) std::cout << ", ... (" << types.size() << " types)";
  std::cout << "\n";
  return Status::ok_status();
}

}  // namespace devplace::cli
