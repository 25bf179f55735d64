// File: cluster_json_fuzz.cc
// libFuzzer target: arbitrary bytes as a cluster JSON file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cluster/cluster_json.h"
#include "common/json_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  devplace::Result<devplace::json::Json> doc = devplace::json::parse_text(text, "fuzz.json");
  if (!doc.ok()) return 0;
  devplace::Result<devplace::Cluster> c = devplace::cluster_from_json(doc.value(), "fuzz.json");
  (void)c;
  return 0;
}
