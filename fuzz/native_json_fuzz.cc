// File: native_json_fuzz.cc
// libFuzzer target: arbitrary bytes as a native JSON graph. Any input must
// give a Graph or an Error; never a crash, a sanitizer report or a hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/json_reader.h"
#include "io/native_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  devplace::Result<devplace::json::Json> doc = devplace::json::parse_text(text, "fuzz.json");
  if (!doc.ok()) return 0;
  devplace::Result<devplace::Graph> g = devplace::graph_from_json(doc.value(), "fuzz.json");
  if (g.ok()) {
    // A graph that reads back must write and read back again.
    devplace::Result<devplace::Graph> again = devplace::graph_from_json(devplace::graph_to_json(g.value()), "again");
    if (!again.ok()) __builtin_trap();
  }
  return 0;
}
