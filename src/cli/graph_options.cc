// File: graph_options.cc
// --training, --optimizer, --input-shape and --tf-costs.
#include "cli/graph_options.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <system_error>

#include "common/format.h"

namespace devplace::cli {

Result<InputShapes> parse_input_shapes(std::string_view text) {
  InputShapes shapes;
  auto bad = [&](std::string_view part) {
    return invalid_input("--input-shape: expected NAME=DxDx... (positive dimensions), comma-separated, got '" +
                         quoted_value(std::string(part)) + "'");
  };
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view part = text.substr(start, comma - start);
    const size_t eq = part.rfind('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == part.size()) return bad(part);
    std::vector<int64_t> dims;
    std::string_view rest = part.substr(eq + 1);
    while (true) {
      const size_t x = std::min(rest.find('x'), rest.size());
      const std::string_view number = rest.substr(0, x);
      int64_t d = 0;
      const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), d);
      if (number.empty() || ec != std::errc() || end != number.data() + number.size() || d < 1 || d > (int64_t{1} << 31))
        return bad(part);
      dims.push_back(d);
      if (x == rest.size()) break;
      rest = rest.substr(x + 1);
    }
    const std::string name(part.substr(0, eq));
    for (const auto& [seen, ignored] : shapes) {
      if (seen == name) return invalid_input("--input-shape: input '" + quoted_value(name) + "' is given twice");
    }
    shapes.emplace_back(name, std::move(dims));
    start = comma + 1;
  }
  return shapes;
}

std::vector<OptionSpec> with_graph_load_options(std::vector<OptionSpec> options) {
  options.push_back({"training", "", "expand a forward-only graph file into a training step first"});
  options.push_back({"optimizer", "NAME", "optimizer for --training: sgd, momentum, adam (default adam)"});
  options.push_back({"input-shape", "NAME=DxD...[,...]", "fix an ONNX input's dynamic dimensions (trtexec's --shapes)"});
  options.push_back({"tf-costs", "FILE",
                     "measured op times for a TensorFlow GraphDef: a RunMetadata, StepStats or CostGraphDef (.pb, .pbtxt)"});
  return options;
}

Result<GraphLoadOptions> graph_load_options(const Args& args) {
  GraphLoadOptions load;
  load.training = args.flag("training");
  if (auto o = args.get("optimizer")) {
    std::optional<Optimizer> parsed = parse_optimizer(*o);
    if (!parsed) return invalid_input("--optimizer: expected sgd, momentum or adam, got '" + *o + "'");
    load.optimizer = *parsed;
  }
  if (auto shapes = args.get("input-shape")) {
    DEVPLACE_ASSIGN_OR_RETURN(load.input_shapes, parse_input_shapes(*shapes));
  }
  if (auto costs = args.get("tf-costs")) {
    if (costs->empty()) return invalid_input("--tf-costs: expected a file (a TensorFlow RunMetadata, StepStats or CostGraphDef)");
    load.costs_file = *costs;
  }
  return load;
}

}  // namespace devplace::cli
