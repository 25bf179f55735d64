// Native JSON graphs: exact round trips and located errors.
#include "io/native_json.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "../test_temp.h"
#include "graph_fixtures.h"

#include "common/file_io.h"
#include "graph/builder.h"
#include "io/native_json_fast.h"
#include "graph/training_step.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

TEST(NativeJson, RoundTripsEveryFieldExactly) {
  Graph g = every_field();
  json::Json j = graph_to_json(g);
  Graph back = graph_from_json(json::parse_text(j.dump(1), "mem").value(), "mem").value();
  expect_same_graph(g, back);
  EXPECT_EQ(graph_to_json(back).dump(1), j.dump(1));
}

TEST(NativeJson, RoundTripsATrainingStep) {
  Graph g = build_zoo_model("layered:layers=3,width=3").value();
  ASSERT_TRUE(g.has_backward());
  const std::string text = graph_to_json(g).dump(1);
  Graph back = graph_from_json(json::parse_text(text, "mem").value(), "mem").value();
  expect_same_graph(g, back);
  EXPECT_EQ(graph_to_json(back).dump(1), text);
}

TEST(NativeJson, FileRoundTrip) {
  const std::string path = testing::temp_file("native_json_test.json").string();
  ASSERT_TRUE(write_native_json(every_field(), path).ok());
  Result<Graph> back = read_native_json(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  expect_same_graph(every_field(), back.value());
}

// The fast path (simdjson) takes ordinary files and builds what the checked reader builds.
TEST(NativeJsonFast, BuildsTheSameGraphAsTheCheckedReader) {
  std::vector<Graph> graphs;
  graphs.push_back(every_field());
  for (const char* model : {"nmt", "rnnlm", "inception_v3", "layered:layers=5,width=4"})
    graphs.push_back(build_zoo_model(model).value());
  for (const Graph& g : graphs) {
    SCOPED_TRACE(g.name());
    for (int indent : {-1, 1}) {
      const std::string text = graph_to_json(g).dump(indent);
      std::optional<Graph> fast = read_native_json_fast(text);
      ASSERT_TRUE(fast.has_value());
      expect_same_graph(graph_from_json(json::parse_text(text, "mem").value(), "mem").value(), *fast);
      EXPECT_EQ(graph_to_json(*fast).dump(indent), text);
    }
  }
}

// What the fast path is not sure of goes to the checked reader, which
// decides: here it accepts each (integral numbers written as decimals, a
// byte-order mark, an "export" block, an escaped key).
TEST(NativeJsonFast, LeavesUnusualButValidFilesToTheCheckedReader) {
  const std::string op = R"("name": "a", "type": "T", "outputs": [{"name": "a:0", "shape": [2]}])";
  for (const std::string& text : {
           R"({"format": "devplace-graph", "ops": [{)" + op + R"(, "parameter_bytes": 4.0}]})",
           R"({"format": "devplace-graph", "ops": [{)" + op + R"(, "layer": 1e1}]})",
           R"({"format": "devplace-graph", "version": 1.0, "ops": [{)" + op + "}]}",
           "\xEF\xBB\xBF" R"({"format": "devplace-graph", "ops": [{)" + op + "}]}",
           R"({"format": "devplace-graph", "export": {"a": [1, {"b": null}]}, "ops": [{)" + op + "}]}",
           R"({"format": "devplace-graph", "ops": [{)" + op + R"(, "fl\u006fps": 3}]})"}) {
    SCOPED_TRACE(text);
    Result<json::Json> doc = json::parse_text(text, "mem");
    ASSERT_TRUE(doc.ok()) << doc.error().message();
    Result<Graph> checked = graph_from_json(doc.value(), "mem");
    ASSERT_TRUE(checked.ok()) << checked.error().message();
    const std::string path = testing::temp_file("unusual.json").string();
    ASSERT_TRUE(write_text_file(path, text).ok());
    Result<Graph> g = read_native_json(path);
    ASSERT_TRUE(g.ok()) << g.error().message();
    expect_same_graph(checked.value(), g.value());
    std::optional<Graph> fast = read_native_json_fast(text);
    if (fast) expect_same_graph(checked.value(), *fast);
  }
}

// Files the checked reader refuses though each value is fine on its own: the fast path must decline them too.
TEST(NativeJsonFast, DeclinesWhatTheCheckedReaderRefuses) {
  const std::string op = R"("name": "a", "type": "T")";
  std::string deep = std::string(300, '[') + std::string(300, ']');
  for (const std::string& text : {
           R"({"format": "devplace-graph", "ops": [{)" + op + R"(, "flops": 1, "flops": 2}]})",
           R"({"format": "devplace-graph", "ops": [{)" + op + R"(, "measured_time_s": {"gpu": 1, "gpu": 2}}]})",
           R"({"format": "devplace-graph", "export": {"a": 1, "a": 2}, "ops": [{)" + op + "}]}",
           R"({"format": "devplace-graph", "export": )" + deep + R"(, "ops": [{)" + op + "}]}",
           R"({"format": "devplace-graph", "ops": [{)" + op + "}]} trailing",
           R"({"format": "devplace-graph", "ops": [{)" + op + R"(, "parameter_bytes": 9223372036854775808}]})",
           R"({"format": "devplace-graph", "ops": [{)" + op + R"(, "layer": 2147483648}]})",
           R"({"format": "devplace-graph", "ops": [{)" + op + R"(, "kernels": []}]})",
           R"({"format": "devplace-graph", "ops": [{)" + op + R"(, "inputs": ["nowhere"]}]})",
           R"({"format": "devplace-graph", "ops": [{)" + op + "}, {" + op + "}]}"}) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(read_native_json_fast(text).has_value());
    Result<json::Json> doc = json::parse_text(text, "mem");
    if (doc.ok()) EXPECT_FALSE(graph_from_json(doc.value(), "mem").ok());
  }
}

struct BadDoc {
  const char* text;
  const char* message;
};

void PrintTo(const BadDoc& d, std::ostream* os) { *os << d.text; }

class NativeJsonErrors : public ::testing::TestWithParam<BadDoc> {};

TEST_P(NativeJsonErrors, NameTheFileAndPlace) {
  Result<json::Json> doc = json::parse_text(GetParam().text, "g.json");
  std::string message;
  if (!doc.ok()) {
    message = doc.error().message();
  } else {
    Result<Graph> g = graph_from_json(doc.value(), "g.json");
    ASSERT_FALSE(g.ok());
    message = g.error().message();
  }
  EXPECT_EQ(message, GetParam().message);
}

// The fast path declines every bad file, and reading it from a file gives the checked reader's message.
TEST_P(NativeJsonErrors, FastPathDeclinesAndTheFileReaderSaysTheSame) {
  EXPECT_FALSE(read_native_json_fast(GetParam().text).has_value());
  const std::string path = testing::temp_file("g.json").string();
  ASSERT_TRUE(write_text_file(path, GetParam().text).ok());
  Result<Graph> g = read_native_json(path);
  ASSERT_FALSE(g.ok());
  std::string expected = GetParam().message;
  expected.replace(0, std::string("g.json").size(), path);
  EXPECT_EQ(g.error().message(), expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, NativeJsonErrors,
    ::testing::Values(
        BadDoc{"{\"format\": \"devplace-graph\",\n \"ops\": [}", "g.json:2:10: malformed JSON: syntax error while parsing value - unexpected '}'; expected '[', '{', or a literal"},
        BadDoc{R"({"format": "other", "ops": []})", "g.json: format: expected \"devplace-graph\" (a devplace graph)"},
        BadDoc{R"({"format": "devplace-graph", "version": 2, "ops": []})", "g.json: version: this devplace reads version 1, got 2"},
        BadDoc{R"({"format": "devplace-graph", "ops": [{"name": "a", "type": "T", "flops": "many"}]})",
               "g.json: ops[0] ('a').flops: expected a non-negative number, got \"many\""},
        BadDoc{R"({"format": "devplace-graph", "ops": [{"name": "a", "type": "T", "kernels": ["tpu"]}]})",
               "g.json: ops[0] ('a').kernels[0]: expected \"cpu\" or \"gpu\", got \"tpu\""},
        BadDoc{R"({"format": "devplace-graph", "ops": [{"name": "a", "type": "T", "outputs": [{"name": "t", "shape": [2, -3]}]}]})",
               "g.json: ops[0] ('a').outputs[0].shape[1]: expected a non-negative integer, got -3"},
        BadDoc{R"({"format": "devplace-graph", "ops": [{"name": "a", "type": "T", "outputs": [{"name": "t"}]}, {"name": "b", "type": "T", "outputs": [{"name": "t"}]}]})",
               "g.json: ops[1] ('b').outputs[0].name: tensor 't' is already produced by another op"},
        BadDoc{R"({"format": "devplace-graph", "ops": [{"name": "a", "type": "T", "measured_time_s": {"gpu": -1}}]})",
               "g.json: ops[0] ('a').measured_time_s.gpu: expected a non-negative number, got -1"},
        BadDoc{R"({"format": "devplace-graph", "measured_on": {"gpu": {"peak_flops": 0, "memory_bandwidth_bytes_per_s": 1}}, "ops": []})",
               "g.json: measured_on.gpu.peak_flops: expected a positive number, got 0"},
        BadDoc{R"({"format": "devplace-graph", "measured_on": {"tpu": {}}, "ops": []})",
               "g.json: measured_on.tpu: unknown field (known: cpu, gpu)"},
        BadDoc{R"({"format": "devplace-graph", "ops": [{"name": "a", "type": "T", "phase": "sideways"}]})",
               "g.json: ops[0] ('a').phase: expected \"forward\", \"backward\" or \"update\", got \"sideways\""},
        BadDoc{R"({"format": "devplace-graph", "ops": [{"name": "a", "type": "T", "flop": 3}]})",
               "g.json: ops[0] ('a').flop: unknown field (known: name, type, inputs, outputs, flops, parameter_bytes, optimizer_state_bytes, memory_traffic_bytes, measured_time_s, measured_backward_time_s, kernels, colocation_group, pinned_device, phase, layer, forward_op)"},
        BadDoc{R"({"format": "devplace-graph", "ops": [{"name": "a", "type": "T", "forward_op": "zz"}]})",
               "g.json: ops[0] ('a').forward_op: names no op 'zz'"},
        BadDoc{R"({"format": "devplace-graph", "ops": []})", "g.json: graph has no ops"},
        BadDoc{R"([1, 2])", "g.json: top level: expected an object, got [1,2]"}));

}  // namespace
}  // namespace devplace

namespace devplace {
namespace {

TEST(JsonReader, NumbersBeyondDoubleRangeAreAnErrorNotACrash) {
  // Found by fuzz_native_json.
  Result<json::Json> doc = json::parse_text("8e878", "f.json");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().message(), "f.json: malformed JSON: number overflow parsing '8e878'");
}

}  // namespace
}  // namespace devplace
