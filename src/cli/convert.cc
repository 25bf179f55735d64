// File: convert.cc
// `devplace convert`: any graph source written as a native graph: JSON, or
// binary when the output's name ends in .dpg.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/graph_options.h"
#include "io/graph_source.h"
#include "io/native_binary.h"
#include "io/native_json.h"

namespace devplace::cli {

namespace {
const CommandSpec kSpec = {
    "devplace convert --graph SRC --out FILE.json|FILE.dpg [--training]",
    "Reads any graph source (a file of any supported format, or zoo:NAME[:k=v,...]) and writes it as a\n"
    "devplace graph file (docs/formats.md): JSON, or, when FILE ends in .dpg, the binary form, which\n"
    "holds the same and reads several times faster (every command reads both).",
    with_graph_load_options({{"graph", "SRC", "graph file or zoo:NAME[:k=v,...]", true},
     {"out", "FILE", "the graph file to write: JSON, or binary if it ends in .dpg", true, true}})
};
}  // namespace

Status run_convert(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  DEVPLACE_ASSIGN_OR_RETURN(const GraphLoadOptions load, graph_load_options(args));
  DEVPLACE_ASSIGN_OR_RETURN(Graph g, load_graph(*args.get("graph"), load));
  const std::string out = *args.get("out");
  const bool binary = out.size() >= 4 && out.compare(out.size() - 4, 4, ".dpg") == 0;
  DEVPLACE_RETURN_IF_ERROR(binary ? write_native_binary(g, out) : write_native_json(g, out));
  std::cout << "wrote " << *args.get("out") << ": " << g.num_ops() << " ops, " << g.num_edges() << " edges\n";
  return Status::ok_status();
}

}  // namespace devplace::cli
