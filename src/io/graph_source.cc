// File: graph_source.cc
// Graph source resolution: zoo specs, and files by format detection.
#include "io/graph_source.h"

#include <filesystem>
#include <fstream>

#include "io/importer.h"
#include "zoo/zoo.h"

namespace devplace {

namespace {

Result<Graph> read_graph_file(const std::string& path, const InputShapes& shapes, const std::string& costs_file) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path + ": cannot read file");
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  std::string known;
  for (const Importer& imp : importer_registry()) {
    if (!imp.detect(path, head)) {
      known += (known.empty() ? "" : "; ") + std::string(imp.description);
      continue;
    }
    if (!shapes.empty() && imp.read_with_shapes == nullptr)
      return invalid_input("--input-shape: " + path + " is a " + std::string(imp.description) +
                           ", whose inputs have fixed shapes (it applies to ONNX models)");
    if (!costs_file.empty()) {
      if (imp.read_with_costs == nullptr)
        return invalid_input("--tf-costs: " + path + " is a " + std::string(imp.description) +
                             ", which takes no costs file (it applies to TensorFlow GraphDefs)");
      return imp.read_with_costs(path, costs_file);
    }
    if (shapes.empty()) return imp.read(path);
    return imp.read_with_shapes(path, shapes);
  }
  return invalid_input(path + ": unknown graph format (supported: " + known + "; or zoo:NAME)");
}

}  // namespace

Result<Graph> load_graph(const std::string& spec, const GraphLoadOptions& options) {
  if (spec.rfind("zoo:", 0) == 0) {
    if (options.training) return invalid_input(spec + ": zoo models are training steps already (training=0 turns that off)");
    if (!options.input_shapes.empty()) return invalid_input("--input-shape: " + spec + ": zoo models have fixed shapes (set them with the model's options)");
    if (!options.costs_file.empty()) return invalid_input("--tf-costs: " + spec + ": zoo models take no costs file (it applies to TensorFlow GraphDefs)");
    return build_zoo_model(std::string_view(spec).substr(4));
  }
  // PipeDream's profiler writes a directory per model, its profile in graph.txt.
  std::string path = spec;
  std::error_code ec;
  if (std::filesystem::is_directory(spec, ec)) {
    const std::filesystem::path profile = std::filesystem::path(spec) / "graph.txt";
    if (!std::filesystem::is_regular_file(profile, ec))
      return invalid_input(spec + ": a directory, and not a PipeDream profile's (no graph.txt in it); give a graph file");
    path = profile.string();
  }
  DEVPLACE_ASSIGN_OR_RETURN(Graph g, read_graph_file(path, options.input_shapes, options.costs_file));
  if (!options.training) return g;
  TrainingOptions t;
  t.optimizer = options.optimizer;
  Result<Graph> expanded = expand_training_step(g, t);
  if (!expanded.ok()) return expanded.error().with_prefix(spec);
  return expanded;
}

}  // namespace devplace
