// The Chrome trace holds every op and transfer of the run, in microseconds.
#include "io/chrome_trace.h"

#include <gtest/gtest.h>

#include "../test_clusters.h"
#include "cost/cost_model.h"
#include "place/run_placer.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

TEST(ChromeTrace, OneSliceEachOpAndTransferHop) {
  Graph g = build_zoo_model("layered:layers=3,width=2").value();
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  Simulator sim(p);
  PlacerRunOptions options;
  options.grouping.kind = GroupingKind::kColocation;
  Placement pl = run_placer("round-robin", p, sim, options).value().placement;
  ASSERT_TRUE(sim.run(pl, SimOptions{.record_timeline = true}).ok());
  const SimResult& r = sim.result();
  json::Json t = chrome_trace_json(p, r);
  size_t op_slices = 0, transfer_slices = 0, counters = 0;
  double last_end_us = 0;
  for (const json::Json& e : t["traceEvents"]) {
    if (e["ph"] == "X") {
      (e["cat"] == "transfer" ? transfer_slices : op_slices)++;
      last_end_us = std::max(last_end_us, e["ts"].get<double>() + e["dur"].get<double>());
    }
    if (e["ph"] == "C") ++counters;
  }
  size_t hops = 0;
  for (const TransferInterval& x : r.transfers) hops += c.route(x.from, x.to).channels.size();
  EXPECT_EQ(op_slices, static_cast<size_t>(g.num_ops()));
  EXPECT_GT(r.transfers.size(), 0u);
  EXPECT_EQ(transfer_slices, hops);
  EXPECT_EQ(counters, r.memory.size());
  EXPECT_NEAR(last_end_us, r.step_time_s * 1e6, 1e-6 * r.step_time_s * 1e6);
}

}  // namespace
}  // namespace devplace
