// Native binary graphs (.dpg): exact round trips, detection by content,
// and located errors for every truncation and bad field.
#include "io/native_binary.h"

#include <gtest/gtest.h>

#include <cstring>

#include "../test_temp.h"
#include "graph_fixtures.h"

#include "common/file_io.h"
#include "io/graph_source.h"
#include "io/native_json.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

TEST(NativeBinary, RoundTripsEveryFieldExactly) {
  const Graph g = every_field();
  const std::string bytes = graph_to_binary(g);
  Result<Graph> back = graph_from_binary(bytes, "mem");
  ASSERT_TRUE(back.ok()) << back.error().message();
  expect_same_graph(g, back.value());
  EXPECT_EQ(graph_to_binary(back.value()), bytes);
}

TEST(NativeBinary, RoundTripsZooTrainingSteps) {
  for (const char* spec : {"nmt:steps=3,hidden=64,vocab=100", "inception_v3", "layered:layers=3,width=3"}) {
    const Graph g = build_zoo_model(spec).value();
    Result<Graph> back = graph_from_binary(graph_to_binary(g), "mem");
    ASSERT_TRUE(back.ok()) << spec << ": " << back.error().message();
    expect_same_graph(g, back.value());
    EXPECT_EQ(graph_to_json(back.value()).dump(1), graph_to_json(g).dump(1)) << spec;
  }
}

// load_graph knows the format by its first bytes, whatever the file is called.
TEST(NativeBinary, EveryCommandReadsItByContent) {
  for (const char* name : {"g.dpg", "g.bin", "graph"}) {
    const std::string path = testing::temp_file(name).string();
    ASSERT_TRUE(write_native_binary(every_field(), path).ok());
    Result<Graph> back = load_graph(path, GraphLoadOptions{});
    ASSERT_TRUE(back.ok()) << name << ": " << back.error().message();
    expect_same_graph(every_field(), back.value());
  }
}

// Every prefix of a file is an error that names the file and an offset; none crashes.
TEST(NativeBinary, EveryTruncationIsALocatedError) {
  const std::string bytes = graph_to_binary(every_field());
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<Graph> g = graph_from_binary(std::string_view(bytes).substr(0, n), "g.dpg");
    ASSERT_FALSE(g.ok()) << n;
    EXPECT_EQ(g.error().message().rfind("g.dpg: offset ", 0), 0u) << g.error().message();
  }
}

// The bytes of every_field() with `value` written over the bytes at `at`.
template <typename T>
std::string patched(size_t at, T value) {
  std::string bytes = graph_to_binary(every_field());
  std::memcpy(bytes.data() + at, &value, sizeof(T));
  return bytes;
}

// Where a string's bytes begin in every_field()'s file (after its length).
size_t offset_of(std::string_view s) {
  const std::string bytes = graph_to_binary(every_field());
  const size_t at = bytes.find(s);
  EXPECT_NE(at, std::string::npos) << s;
  return at;
}

std::string error_of(const std::string& bytes) {
  Result<Graph> g = graph_from_binary(bytes, "g.dpg");
  return g.ok() ? "(read)" : g.error().message();
}

TEST(NativeBinary, BadFieldsNameTheOffsetAndTheOp) {
  const std::string good = graph_to_binary(every_field());
  EXPECT_EQ(error_of("{\"format\": \"devplace-graph\"}"), "g.dpg: offset 0: magic: not a devplace binary graph (it starts with DPGRAPH)");
  EXPECT_EQ(error_of(patched<uint32_t>(8, 2)), "g.dpg: offset 8: version: 2 (this devplace reads version 1)");
  // f:0's dtype is the byte after its name.
  const size_t dtype_at = offset_of("f:0") + 3;
  EXPECT_EQ(error_of(patched<uint8_t>(dtype_at, 200)),
            "g.dpg: offset " + std::to_string(dtype_at) + ": ops[1] ('f').outputs[0].dtype: unknown dtype code 200");
  EXPECT_EQ(error_of(patched<int64_t>(dtype_at + 1, -5)),
            "g.dpg: offset " + std::to_string(dtype_at + 1) + ": ops[1] ('f').outputs[0].bytes: expected a non-negative size, got -5");
  // The inputs come last: f_grad's second reads tensor #99.
  EXPECT_EQ(error_of(patched<uint32_t>(good.size() - 4, 99)),
            "g.dpg: offset " + std::to_string(good.size() - 4) + ": ops[2] ('f_grad').inputs: input 1 names no tensor #99");
  EXPECT_EQ(error_of(good + "x"), "g.dpg: offset " + std::to_string(good.size()) + ": end: 1 bytes after the graph");
}

// A count the file cannot hold is refused before anything is reserved for it.
TEST(NativeBinary, CountsTheFileCannotHoldAreRefused) {
  const std::string good = graph_to_binary(every_field());
  // The counts sit right before the first op's name ("x", its length 1 before it).
  const size_t first_op = good.find(std::string("\x01\0\0\0x", 5));
  ASSERT_NE(first_op, std::string::npos);
  const size_t counts_at = first_op - 16;
  EXPECT_EQ(error_of(good.substr(0, counts_at) + std::string("\xff\xff\xff\x7f", 4) + good.substr(counts_at + 4)).rfind(
                "g.dpg: offset " + std::to_string(counts_at) + ": counts: 2147483647 ops", 0),
            0u);
}

// What the builder refuses (here a cycle) comes back with the file's name.
TEST(NativeBinary, GraphErrorsNameTheFile) {
  std::string bytes = graph_to_binary(every_field());
  // x reads nothing; make f read f_grad's output (#3) instead of x:0: f -> f_grad -> f.
  const size_t f_input = bytes.size() - 12;  // inputs: f's one, then f_grad's two
  std::memcpy(bytes.data() + f_input, "\x03\0\0\0", 4);
  const std::string e = error_of(bytes);
  EXPECT_EQ(e.rfind("g.dpg: ", 0), 0u) << e;
  EXPECT_NE(e.find("cycle"), std::string::npos) << e;
}

}  // namespace
}  // namespace devplace
