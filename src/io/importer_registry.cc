// File: importer_registry.cc
// The table of graph importers, one line each, asked in this order.
#include <string>

#include "io/importer.h"
#include "io/native_binary.h"
#include "io/native_json.h"
#include "io/onnx_importer.h"
#include "io/pipedream_importer.h"
#include "io/tf_graphdef_importer.h"

namespace devplace {

namespace {

// The format marker, or any ".json" file (the reader then says what is wrong with it).
bool detect_native_json(const std::string& path, std::string_view head) {
  const bool json_suffix = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  return json_suffix || head.find("\"devplace-graph\"") != std::string_view::npos;
}

bool detect_native_binary(const std::string&, std::string_view head) { return is_native_binary(head); }

}  // namespace

const std::vector<Importer>& importer_registry() {
  static const std::vector<Importer> registry = {
      {"devplace-binary", "devplace binary graph .dpg (docs/formats.md)", &detect_native_binary, &read_native_binary},
      {"devplace-json", "devplace graph JSON (docs/formats.md)", &detect_native_json, &read_native_json},
      {"onnx", "ONNX model .onnx (docs/formats.md)", &detect_onnx_model, &read_onnx_model, &read_onnx_model_with_shapes},
      {"pipedream", "PipeDream layer profile graph.txt (docs/formats.md)", &detect_pipedream_profile, &read_pipedream_profile},
      {"tf-graphdef", "TensorFlow GraphDef .pb/.pbtxt (docs/formats.md)", &detect_tf_graphdef, &read_tf_graphdef, nullptr, &read_tf_graphdef_with_costs},
  };
  return registry;
}

}  // namespace devplace
