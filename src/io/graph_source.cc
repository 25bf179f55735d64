// File: graph_source.cc
// Graph source resolution and format detection.
#include "io/graph_source.h"

#include "common/file_io.h"
#include "common/json_reader.h"
#include "io/native_json.h"
#include "zoo/zoo.h"

namespace devplace {

namespace {

Result<Graph> read_graph_file(const std::string& path) {
  DEVPLACE_ASSIGN_OR_RETURN(std::string text, read_text_file(path));
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    DEVPLACE_ASSIGN_OR_RETURN(json::Json doc, json::parse_text(text, path));
    if (is_native_graph_json(doc)) return graph_from_json(doc, path);
    return invalid_input(path + ": a JSON file, but not a devplace graph (expected \"format\": \"devplace-graph\")");
  }
  return invalid_input(path + ": unknown graph format (supported: devplace graph JSON; or zoo:NAME)");
}

}  // namespace

Result<Graph> load_graph(const std::string& spec, const GraphLoadOptions& options) {
  if (spec.rfind("zoo:", 0) == 0) {
    if (options.training) return invalid_input(spec + ": zoo models are training steps already (training=0 turns that off)");
    return build_zoo_model(std::string_view(spec).substr(4));
  }
  DEVPLACE_ASSIGN_OR_RETURN(Graph g, read_graph_file(spec));
  if (!options.training) return g;
  TrainingOptions t;
  t.optimizer = options.optimizer;
  Result<Graph> expanded = expand_training_step(g, t);
  if (!expanded.ok()) return expanded.error().with_prefix(spec);
  return expanded;
}

}  // namespace devplace
