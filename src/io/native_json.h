// File: native_json.h
// The native JSON graph format ("devplace-graph", version 1), documented in
// docs/formats.md. Reading then writing a file written by devplace gives the
// same text; reading a written graph gives an equal Graph.
#pragma once

#include <string>

#include "common/json_reader.h"
#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

// Errors are prefixed with `source` and name the op and field:
//   g.json: ops[3] ('fc1').inputs[0]: names no tensor 'x:1'
Result<Graph> graph_from_json(const json::Json& doc, const std::string& source);
Result<Graph> read_native_json(const std::string& path);

json::Json graph_to_json(const Graph& graph);
// Writes the graph as indented JSON. Fails only if the file cannot be written.
Status write_native_json(const Graph& graph, const std::string& path);

// True if a parsed document says it is a devplace graph.
bool is_native_graph_json(const json::Json& doc);

}  // namespace devplace
