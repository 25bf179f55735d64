// File: zoo_cmd.cc
// `devplace zoo list`: the built-in models with their size per training step.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/format.h"
#include "common/json_reader.h"
#include "zoo/zoo.h"

namespace devplace::cli {

namespace {
const CommandSpec kSpec = {
    "devplace zoo list [--json]",
    "Lists the built-in models (use them as --graph zoo:NAME[:key=value,...]) with the op count,\n"
    "parameter bytes and FLOPs of one training step at their default options.",
    {{"json", "", "print JSON"}},
    /*positional=*/true,
};
}  // namespace

Status run_zoo(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  if (args.positional().size() != 1 || args.positional()[0] != "list") return invalid_input("usage: " + kSpec.usage);
  json::Json all = json::Json::array();
  if (!args.flag("json"))
    std::cout << pad_right("model", 14) << pad_left("ops", 8) << pad_left("parameters", 13) << pad_left("FLOPs/step", 14)
              << "  description\n";
  for (const ZooModel& m : zoo_registry()) {
    DEVPLACE_ASSIGN_OR_RETURN(Graph g, build_zoo_model(m.name));
    if (args.flag("json")) {
      all.push_back({{"name", std::string(m.name)},
                     {"ops", g.num_ops()},
                     {"edges", g.num_edges()},
                     {"parameter_bytes", g.total_parameter_bytes()},
                     {"flops", g.total_flops()},
                     {"description", std::string(m.summary)}});
      continue;
    }
    std::cout << pad_right(std::string(m.name), 14) << pad_left(std::to_string(g.num_ops()), 8)
              << pad_left(format_bytes(g.total_parameter_bytes()), 13) << pad_left(format_flops(g.total_flops()), 14) << "  "
              << m.summary << "\n";
  }
  if (args.flag("json")) std::cout << all.dump(2) << "\n";
  return Status::ok_status();
}

}  // namespace devplace::cli
