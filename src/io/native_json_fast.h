// File: native_json_fast.h
// The fast path of the native JSON graph reader (native_json.h): simdjson
// parses the text and the graph is built straight from its document. It
// takes only what it is sure of: a well-formed file with known fields, each
// of the expected type and range, and no key given twice in one object.
// Anything else, including a graph the builder refuses, makes it decline,
// and read_native_json reads the same text with the checked reader, whose
// errors name the file and the place. So it never accepts what the checked
// reader refuses and builds the same graph when it accepts (tested, and
// checked by fuzz_native_json on every input).
//
// Why: a 50k-op training graph (20 MB) took 0.57 s through nlohmann::json,
// most of it allocating the document; see docs/formats.md for the figures.
#pragma once

#include <optional>
#include <string_view>

#include "graph/graph.h"

namespace devplace {

// The graph, or nullopt when the checked reader must decide.
// The text is parsed in place when at least 64 bytes after it are readable
// (`readable_past_end`, as MappedText gives), else copied first.
std::optional<Graph> read_native_json_fast(std::string_view text, size_t readable_past_end = 0);

}  // namespace devplace
