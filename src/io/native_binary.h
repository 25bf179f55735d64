// File: native_binary.h
// The native binary graph format (".dpg", docs/formats.md): everything the
// native JSON format holds, in a compact little-endian form that reads
// without parsing text. `devplace convert --out FILE.dpg` writes it and
// every command that takes --graph reads it (detected by its magic bytes,
// whatever the file's name). A graph takes about half the bytes of its
// JSON and reads several times faster (bench/import_bench.cc).
//
// Reading a written graph gives an equal Graph; writing it again gives the
// same bytes. Errors name the file, the byte offset and the op:
//   g.dpg: offset 1234: ops[5] ('fc1').outputs[0].dtype: unknown dtype code 17
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

// The file's first 8 bytes.
inline constexpr std::string_view kNativeBinaryMagic{"DPGRAPH\0", 8};

// The bytes of the file; write_native_binary writes them atomically.
std::string graph_to_binary(const Graph& graph);
Status write_native_binary(const Graph& graph, const std::string& path);

// Reads bytes made by graph_to_binary; `source` prefixes every error.
Result<Graph> graph_from_binary(std::string_view bytes, const std::string& source);
Result<Graph> read_native_binary(const std::string& path);

// True if `head` (a file's first bytes) starts with the magic.
bool is_native_binary(std::string_view head);

}  // namespace devplace
