// File: importer.h
// Importer: reads one graph file format into a Graph. load_graph
// (graph_source.h) asks each importer in registry order whether a file looks
// like its format (from the path and the file's first bytes) and lets the
// first that says yes read it. A new format is one file plus one line in
// importer_registry.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

struct Importer {
  std::string_view name;         // e.g. "devplace-json"
  std::string_view description;  // one line for help texts
  // True if the file looks like this format; `head` is up to its first 4 KiB.
  bool (*detect)(const std::string& path, std::string_view head);
  // Reads the whole file. Errors are prefixed with the path and name the place.
  Result<Graph> (*read)(const std::string& path);
};

const std::vector<Importer>& importer_registry();

}  // namespace devplace
