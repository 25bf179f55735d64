// File: native_json_fuzz.cc
// libFuzzer target: arbitrary bytes as a native JSON graph. Any input must
// give a Graph or an Error; never a crash, a sanitizer report or a hang.
// The simdjson fast path is checked against the checked reader on every
// input (io/native_json_fast.h). A graph that reads is also made a problem on a 3-device cluster and
// simulated round-robin, so that its sizes reach the simulator's sums.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cluster/cluster_json.h"
#include "common/json_reader.h"
#include "cost/cost_model.h"
#include "io/native_json.h"
#include "io/native_json_fast.h"
#include "sim/simulator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The fast path (simdjson) must never accept what the checked reader
  // refuses, and must build the same graph when it accepts.
  const std::optional<devplace::Graph> fast = devplace::read_native_json_fast(text);
  devplace::Result<devplace::json::Json> doc = devplace::json::parse_text(text, "fuzz.json");
  if (!doc.ok()) {
    if (fast) __builtin_trap();
    return 0;
  }
  devplace::Result<devplace::Graph> g = devplace::graph_from_json(doc.value(), "fuzz.json");
  if (fast && (!g.ok() || devplace::graph_to_json(*fast).dump() != devplace::graph_to_json(g.value()).dump()))
    __builtin_trap();
  if (g.ok()) {
    // A graph that reads back must write and read back again.
    devplace::Result<devplace::Graph> again = devplace::graph_from_json(devplace::graph_to_json(g.value()), "again");
    if (!again.ok()) __builtin_trap();
    static const devplace::Cluster cluster = devplace::load_cluster("k80x2").value();
    static const std::unique_ptr<devplace::CostModel> cost = devplace::make_default_cost_model();
    devplace::Result<devplace::Problem> problem = devplace::Problem::create(g.value(), cluster, *cost);
    if (problem.ok()) {
      devplace::Placement p;
      for (devplace::OpId id = 0; id < g.value().num_ops(); ++id) {
        const devplace::GroupId group = g.value().group_of(id);
        devplace::DeviceId d = static_cast<devplace::DeviceId>(group % cluster.num_devices());
        for (int k = 0; k < cluster.num_devices() && !problem.value().allows(group, d); ++k)
          d = static_cast<devplace::DeviceId>((d + 1) % cluster.num_devices());
        p.device_of_op.push_back(d);
      }
      devplace::Simulator sim(problem.value());
      (void)sim.evaluate(p);
    }
  }
  return 0;
}
