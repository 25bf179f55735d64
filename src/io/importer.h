// File: importer.h
// Importer: reads one graph file format into a Graph. load_graph
// (graph_source.h) asks each importer in registry order whether a file looks
// like its format (from the path and the file's first bytes) and lets the
// first that says yes read it. A new format is one file plus one line in
// importer_registry.cc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

// Shapes given for a model's inputs (--input-shape NAME=1x3x224x224), in
// the order given: they replace the inputs' dynamic dimensions.
using InputShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

struct Importer {
  std::string_view name;         // e.g. "devplace-json"
  std::string_view description;  // one line for help texts
  // True if the file looks like this format; `head` is up to its first 4 KiB.
  bool (*detect)(const std::string& path, std::string_view head);
  // Reads the whole file. Errors are prefixed with the path and name the place.
  Result<Graph> (*read)(const std::string& path);
  // The same with input shapes; null for formats whose inputs have fixed
  // shapes (--input-shape is then an error).
  Result<Graph> (*read_with_shapes)(const std::string& path, const InputShapes& shapes) = nullptr;
  // The same with measured op times from a costs file (--tf-costs); null
  // for formats that take none (the option is then an error).
  Result<Graph> (*read_with_costs)(const std::string& path, const std::string& costs_path) = nullptr;
};

const std::vector<Importer>& importer_registry();

}  // namespace devplace
