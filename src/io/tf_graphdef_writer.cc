// File: tf_graphdef_writer.cc
// Placements written back into GraphDefs (see tf_graphdef_writer.h).
#include "io/tf_graphdef_writer.h"

#include "common/file_io.h"
#include "common/format.h"
#include "io/internal/tf_device_spec.h"
#include "io/internal/tf_proto_io.h"
#include "io/proto/tf_graph.pb.h"
#include "io/tf_graphdef_importer.h"

namespace devplace {

namespace {

Result<tf::GraphDef> read_graphdef(const std::string& path) {
  DEVPLACE_ASSIGN_OR_RETURN(const std::string bytes, read_binary_file(path, kMaxTextFileBytes));
  tf::GraphDef g;
  DEVPLACE_RETURN_IF_ERROR(parse_tf_proto(bytes, tf_proto_syntax(path), path, "TensorFlow GraphDef", false, &g));
  return g;
}

// Whether the GraphDef holds fields devplace's subset does not declare (text cannot write them).
bool has_unknown_fields(const tf::GraphDef& g) {
  tf::GraphDef known = g;
  known.DiscardUnknownFields();
  return known.ByteSizeLong() != g.ByteSizeLong();
}

}  // namespace

bool is_tf_graphdef_output(const std::string& path) { return is_tf_graphdef_path(path); }

Status check_tf_graphdef_output(const std::string& flag, const std::string& out_path, const std::string& graph_spec) {
  if (!is_tf_graphdef_path(graph_spec) || graph_spec.rfind("zoo:", 0) == 0)
    return invalid_input(flag + " " + out_path + ": writes a TensorFlow GraphDef, but the graph '" + quoted_value(graph_spec) +
                         "' is not one (give --graph MODEL.pb or .pbtxt, or write the placement as .json or .csv)");
  if (tf_proto_syntax(out_path) != TfProtoSyntax::kText || tf_proto_syntax(graph_spec) == TfProtoSyntax::kText)
    return Status::ok_status();
  DEVPLACE_ASSIGN_OR_RETURN(const tf::GraphDef g, read_graphdef(graph_spec));
  if (has_unknown_fields(g))
    return invalid_input(flag + " " + out_path + ": " + graph_spec +
                         " holds fields outside devplace's GraphDef subset (a function library?), which the text format "
                         "cannot keep: write a binary .pb");
  return Status::ok_status();
}

std::string tf_device_string(const Cluster& cluster, DeviceId device) {
  const Device& d = cluster.device(device);
  const std::string type = d.kind == DeviceKind::kGpu ? "GPU" : "CPU";
  Result<TfDeviceSpec> spec = parse_tf_device_spec(d.name);
  if (spec.ok() && spec.value().kind == d.kind && spec.value().index >= 0 && spec.value().colocate_with.empty() &&
      d.name == devplace_device_name(d.kind, spec.value().index))
    return "/device:" + type + ":" + std::to_string(spec.value().index);
  int index = 0;
  for (DeviceId i = 0; i < device; ++i) index += cluster.device(i).kind == d.kind;
  return "/device:" + type + ":" + std::to_string(index);
}

Status write_tf_graphdef_placement(const std::string& out_path, const std::string& graph_path, const Problem& problem,
                                   const Placement& placement) {
  DEVPLACE_ASSIGN_OR_RETURN(tf::GraphDef g, read_graphdef(graph_path));
  const Graph& graph = problem.graph();
  for (int i = 0; i < g.node_size(); ++i) {
    tf::NodeDef& node = *g.mutable_node(i);
    const std::optional<OpId> op = graph.find_op(node.name());
    if (!op || static_cast<size_t>(*op) >= placement.device_of_op.size())
      return internal_error(graph_path + ": node '" + quoted_value(node.name()) + "' is no op of the placed graph (did the file change?)");
    node.set_device(tf_device_string(problem.cluster(), placement.device_of_op[*op]));
  }
  const TfProtoSyntax syntax = tf_proto_syntax(out_path);
  if (syntax == TfProtoSyntax::kText && has_unknown_fields(g))
    return invalid_input(out_path + ": " + graph_path + " holds fields outside devplace's GraphDef subset, which the text format cannot keep: write a binary .pb");
  DEVPLACE_ASSIGN_OR_RETURN(const std::string bytes, serialize_tf_proto(g, syntax, out_path));
  return write_text_file(out_path, bytes);
}

}  // namespace devplace
