// File: graph_source.h
// load_graph: turns a graph source as the user wrote it into a Graph.
//   zoo:NAME[:k=v,...]  a built-in model (zoo/zoo.h)
//   PATH                a file; the format is detected from its content
//                       (a devplace graph JSON: "format": "devplace-graph")
#pragma once

#include <string>

#include "common/status.h"
#include "graph/graph.h"
#include "graph/training_step.h"
#include "io/importer.h"

namespace devplace {

struct GraphLoadOptions {
  // Expand a forward-only file into a training step. Zoo sources are
  // expanded by default (their own training=0 option turns it off).
  bool training = false;
  Optimizer optimizer = Optimizer::kAdam;
  // Fixed shapes for a model's dynamic inputs (ONNX only).
  InputShapes input_shapes;
  // Measured op times for the graph (--tf-costs: a TensorFlow RunMetadata,
  // StepStats or CostGraphDef; TensorFlow GraphDefs only). Empty: none.
  std::string costs_file;
};

Result<Graph> load_graph(const std::string& spec, const GraphLoadOptions& options = {});

}  // namespace devplace
