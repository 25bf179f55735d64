// File: tf_graphdef_importer.h
// Reads a TensorFlow GraphDef (binary .pb / .graphdef, or text .pbtxt) into
// a Graph, the format the placement paper (Mirhoseini et al. 2017) placed.
// devplace has its own subset of TensorFlow's protos
// (io/proto/tf_graph.proto, tf_costs.proto: TensorFlow's field numbers, no
// TensorFlow dependency); only the .cc files of the TensorFlow importer
// see protobuf headers. Rules (docs/formats.md, "TensorFlow GraphDef"):
// - One op per NodeDef, named as the node, typed by its op (NoOp,
//   Placeholder, Const, VariableV2 too); output k of node N is the tensor
//   "N:k"; a control input "^N" reads N's zero-byte tensor "^N".
// - Shapes from the _output_shapes attr (TensorFlow writes it with
//   add_shapes=True), else from the shape / value attrs (Placeholder,
//   variables, Const) and simple rules (elementwise, BiasAdd, MatMul);
//   dtypes from the dtype / T / DstT / out_type attrs. A tensor whose shape
//   stays unknown counts 0 bytes (one warning counts them).
// - FLOPs by op type (internal/tf_op_rules.h); an op type without a rule
//   costs its bytes (one warning names them).
// - Variables (VariableV2, Variable, VarHandleOp) hold parameter_bytes from
//   their shape and dtype attrs. Ops under a "gradients" name scope are
//   backward ops, Apply* ops update ops.
// - The _class attr's "loc:@N" entries (and a device "@N") put a node in N's
//   co-location group. A device "/device:GPU:1" (any job, replica, task;
//   "/gpu:1" too) pins the op to devplace's "/gpu:1"; "/device:GPU:*" only
//   limits it to GPUs. Placeholders and ops with string outputs run on the
//   CPU only.
// - Measured times, optionally, from a RunMetadata / StepStats /
//   CostGraphDef file (internal/tf_costs.h), per device kind.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

// For the importer registry: a ".pb", ".graphdef" or ".pbtxt" path.
bool detect_tf_graphdef(const std::string& path, std::string_view head);
bool is_tf_graphdef_path(const std::string& path);

// Errors name the file and the node: "m.pb: node 'fc1' (#4): input 'ghost' names no node".
Result<Graph> read_tf_graphdef(const std::string& path);
// With measured op times from `costs_path` (a RunMetadata, StepStats or
// CostGraphDef, binary or text): errors name that file.
Result<Graph> read_tf_graphdef_with_costs(const std::string& path, const std::string& costs_path);
// From the file's bytes; `source` names it in errors (its suffix says text or binary).
Result<Graph> parse_tf_graphdef(std::string_view bytes, const std::string& source);

}  // namespace devplace
