// File: importer_fuzz.cc
// libFuzzer target for a file importer: the input bytes are written to a
// file in memory (/dev/shm) with the importer's suffix and read through the
// importer registry (io/importer.h), as `devplace --graph FILE` would.
// DEVPLACE_FUZZ_IMPORTER names the importer, DEVPLACE_FUZZ_SUFFIX the file
// name ending that makes it claim the file. A graph it accepts is written
// as devplace JSON, as `convert` would (JSON needs UTF-8 names: a graph
// that cannot be written throws, and the fuzzer reports it).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/file_io.h"
#include "io/importer.h"
#include "io/native_json.h"

namespace {

const devplace::Importer& importer() {
  for (const devplace::Importer& imp : devplace::importer_registry()) {
    if (imp.name == DEVPLACE_FUZZ_IMPORTER) return imp;
  }
  std::fprintf(stderr, "no importer named %s\n", DEVPLACE_FUZZ_IMPORTER);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/dev/shm/devplace_fuzz_" + std::to_string(::getpid()) + DEVPLACE_FUZZ_SUFFIX;
  if (!devplace::write_text_file(path, std::string_view(reinterpret_cast<const char*>(data), size)).ok()) std::abort();
  devplace::Result<devplace::Graph> g = importer().read(path);
  if (g.ok()) (void)devplace::graph_to_json(g.value()).dump();
  return 0;
}
