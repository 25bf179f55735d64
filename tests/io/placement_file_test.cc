// Placement files: JSON and CSV, group propagation, round trips, errors.
#include "io/placement_file.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "../test_temp.h"

#include "../test_clusters.h"
#include "common/file_io.h"
#include "cost/cost_model.h"
#include "graph/builder.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

struct Fixture {
  Fixture() : graph(build_zoo_model("layered:layers=2,width=2").value()), cluster(testing::toy_cluster()),
              cost(make_default_cost_model()), problem(Problem::create(graph, cluster, *cost).value()) {}
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = testing::temp_file(name).string();
    EXPECT_TRUE(write_text_file(path, text).ok());
    return path;
  }
  Graph graph;
  Cluster cluster;
  std::unique_ptr<CostModel> cost;
  Problem problem;
};

TEST(PlacementFile, ForwardOpsCarryTheirGroupsAlong) {
  Fixture f;
  // Name only forward ops; backward and update ops follow their groups.
  const std::string path = f.write("fwd.csv",
                                   "op,device\ninput,/cpu:0\nl0/n0,/gpu:0\nl0/n1,/gpu:1\n\"l1/n0\",/gpu:0\nl1/n1,/gpu:1\nloss,/gpu:1\n");
  Result<Placement> p = read_placement_file(path, f.problem);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p.value().device_of_op[*f.graph.find_op("l0/n1/update")], 2);
  EXPECT_EQ(p.value().device_of_op[*f.graph.find_op("l1/n0/grad")], 1);
}

TEST(PlacementFile, JsonAndCsvRoundTrip) {
  Fixture f;
  Placement p;
  for (OpId id = 0; id < f.graph.num_ops(); ++id) p.device_of_op.push_back(f.graph.group_of(id) % 3);
  for (const char* name : {"rt.json", "rt.csv"}) {
    const std::string path = testing::temp_file(name).string();
    ASSERT_TRUE(write_placement_file(path, f.problem, p).ok());
    Result<Placement> back = read_placement_file(path, f.problem);
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_EQ(back.value(), p) << name;
  }
}

TEST(PlacementFile, CsvRoundTripsAnyOpName) {
  // Names the CSV reader used to change: a line break, outer spaces, a
  // leading '#', a comma and a quote, an empty-looking name.
  const std::vector<std::string> names = {"a\nb", " spaced ", "#hash", "c,d", "q\"uote", "\t", "plain"};
  GraphBuilder b("odd names");
  TensorId prev = kNoId;
  for (const std::string& name : names) {
    const OpId op = b.add_op(name, "MatMul");
    b.mutable_op(op).flops = 1e9;
    if (prev != kNoId) b.add_input(op, prev);
    prev = b.add_output(op, name + ":0", {}, DType::kFloat32, 1000);
  }
  Graph g = std::move(b).build().value();
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem problem = Problem::create(g, c, *cost).value();
  Placement p;
  for (OpId id = 0; id < g.num_ops(); ++id) p.device_of_op.push_back(static_cast<DeviceId>(id % 3));
  const std::string path = testing::temp_file("odd.csv").string();
  ASSERT_TRUE(write_placement_file(path, problem, p).ok());
  Result<Placement> back = read_placement_file(path, problem);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back.value(), p);
}

TEST(PlacementFile, CsvWithAByteOrderMarkReads) {
  // As spreadsheets save CSV: a UTF-8 byte-order mark, CRLF line ends.
  Fixture f;
  const std::string path = f.write("bom.csv", "\xEF\xBB\xBFop,device\r\ninput,/cpu:0\r\nl0/n0,/gpu:1\r\n");
  Result<Placement> p = read_placement_file(path, f.problem);
  ASSERT_FALSE(p.ok());  // not every op is placed: the error is about that, not the mark
  EXPECT_EQ(p.error().message().find("\xEF"), std::string::npos) << p.error().message();
  EXPECT_EQ(p.error().message().find("op,device"), std::string::npos) << p.error().message();
}

TEST(PlacementFile, ConflictsInAGroupNameBothPlaces) {
  Fixture f;
  const std::string path = f.write("conflict.csv", "l0/n0,/gpu:0\nl0/n0/grad,/gpu:1\n");
  Result<Placement> p = read_placement_file(path, f.problem);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(), path + ":2: op 'l0/n0/grad' on '/gpu:1', but its co-location group 'l0/n0' was put on '/gpu:0' at " +
                                     path + ":1");
}

TEST(PlacementFile, CsvFieldCountAndQuotes) {
  Fixture f;
  const std::string path = f.write("fields.csv", "input,/cpu:0,extra\n");
  EXPECT_EQ(read_placement_file(path, f.problem).error().message(), path + ":1: expected 2 fields \"op,device\", got 3");
  const std::string quote = f.write("quote.csv", "\"input,/cpu:0\n");
  EXPECT_EQ(read_placement_file(quote, f.problem).error().message(), quote + ":1: unterminated quoted field");
}

TEST(PlacementFile, JsonValuesMustBeDeviceNames) {
  Fixture f;
  const std::string path = f.write("num.json", R"({"input": 3})");
  EXPECT_EQ(read_placement_file(path, f.problem).error().message(), path + ": input: expected a device name, got 3");
}

}  // namespace
}  // namespace devplace
