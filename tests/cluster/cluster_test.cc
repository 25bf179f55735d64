// Cluster validation, routes through switches, and the shipped presets.
#include "cluster/cluster.h"

#include <gtest/gtest.h>

#include "../test_clusters.h"
#include "cluster/cluster_json.h"

namespace devplace {
namespace {

TEST(Cluster, RoutesGoThroughSwitchesAndPreferFewerHops) {
  Cluster c = testing::toy_cluster();
  // /cpu:0 -> /gpu:0: cpu->pcie, pcie->gpu0; latencies add, bandwidth is the bottleneck.
  const Route& r = c.route(0, 1);
  ASSERT_EQ(r.channels.size(), 2u);
  EXPECT_EQ(c.channel_name(r.channels[0]), "/cpu:0->pcie");
  EXPECT_EQ(c.channel_name(r.channels[1]), "pcie->/gpu:0");
  EXPECT_DOUBLE_EQ(r.latency_s, 1e-3);
  EXPECT_DOUBLE_EQ(r.bandwidth_bytes_per_s, 1e9);
  // gpu0 -> gpu1 takes the direct link (1 hop), not the switch (2 hops).
  ASSERT_EQ(c.route(1, 2).channels.size(), 1u);
  EXPECT_EQ(c.channel_name(c.route(1, 2).channels[0]), "/gpu:0->/gpu:1");
  EXPECT_EQ(c.channel_name(c.route(2, 1).channels[0]), "/gpu:1->/gpu:0");
  // Both CPU->GPU routes share the cpu->pcie channel: that is the shared bus.
  EXPECT_EQ(c.route(0, 1).channels[0], c.route(0, 2).channels[0]);
  EXPECT_TRUE(c.route(1, 1).channels.empty());
}

TEST(Cluster, PrefersTheWiderRouteAmongEqualHops) {
  auto dev = [](const char* name) {
    Device d;
    d.name = name;
    d.kind = DeviceKind::kGpu;
    d.peak_flops = 1;
    d.memory_bandwidth_bytes_per_s = 1;
    d.memory_bytes = 1;
    return d;
  };
  std::vector<Link> links = {{"/gpu:0", "s_slow", 1e9, 0}, {"s_slow", "/gpu:1", 1e9, 0},
                             {"/gpu:0", "s_fast", 5e9, 0}, {"s_fast", "/gpu:1", 4e9, 0}};
  Cluster c = Cluster::create("w", "", {dev("/gpu:0"), dev("/gpu:1")}, {"s_slow", "s_fast"}, links).value();
  EXPECT_DOUBLE_EQ(c.route(0, 1).bandwidth_bytes_per_s, 4e9);
}

TEST(Cluster, RejectsBadDevicesAndLinks) {
  Device d;
  d.name = "/gpu:0";
  d.kind = DeviceKind::kGpu;
  d.peak_flops = 1e12;
  d.memory_bandwidth_bytes_per_s = 1e11;
  d.memory_bytes = 0;
  EXPECT_EQ(Cluster::create("c", "", {d}, {}, {}).error().message(),
            "devices[0].memory_bytes: expected a positive integer, got 0");
  d.memory_bytes = 1;
  EXPECT_EQ(Cluster::create("c", "", {d}, {}, {{"/gpu:0", "nowhere", 1, 0}}).error().message(),
            "links[0].b: unknown node 'nowhere'");
  EXPECT_EQ(Cluster::create("c", "", {d, d}, {}, {}).error().message(), "devices[1].name: duplicate node name '/gpu:0'");
  EXPECT_EQ(Cluster::create("c", "", {}, {}, {}).error().message(), "devices: a cluster needs at least one device");
}

TEST(ClusterJson, RoundTripsAndRejectsUnknownFields) {
  Cluster c = testing::toy_cluster();
  json::Json j = cluster_to_json(c);
  Cluster back = cluster_from_json(j, "mem").value();
  EXPECT_EQ(cluster_to_json(back), j);
  j["devices"][0]["memroy_bytes"] = 5;
  Result<Cluster> bad = cluster_from_json(j, "c.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message().rfind("c.json: devices[0].memroy_bytes: unknown field (known: ", 0), 0u)
      << bad.error().message();
}

class Preset : public ::testing::TestWithParam<std::string> {};

TEST_P(Preset, LoadsWithConnectedDevicesAndCitedNumbers) {
  setenv("DEVPLACE_CLUSTERS", DEVPLACE_CLUSTERS_DIR, 1);
  Result<Cluster> c = load_cluster(GetParam());
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c.value().name(), GetParam());
  EXPECT_FALSE(c.value().notes().empty()) << "presets say where their figures come from";
  EXPECT_TRUE(c.value().first_device_of_kind(DeviceKind::kGpu).has_value());
  for (DeviceId a = 0; a < c.value().num_devices(); ++a) {
    for (DeviceId b = 0; b < c.value().num_devices(); ++b) {
      if (a != b) {
        EXPECT_GT(c.value().route(a, b).bandwidth_bytes_per_s, 0);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, Preset, ::testing::Values("k80x1", "k80x2", "k80x4", "v100x8", "a100x8", "hetero"));

TEST(Presets, K80x4IsThePapersMachine) {
  setenv("DEVPLACE_CLUSTERS", DEVPLACE_CLUSTERS_DIR, 1);
  Cluster c = load_cluster("k80x4").value();
  ASSERT_EQ(c.num_devices(), 5);
  EXPECT_EQ(c.device(0).kind, DeviceKind::kCpu);
  for (DeviceId g = 1; g <= 4; ++g) {
    EXPECT_EQ(c.device(g).kind, DeviceKind::kGpu);
    EXPECT_EQ(c.device(g).memory_bytes, int64_t{12} << 30);  // 12 GB per K80 die
  }
  // Dies 0 and 1 share a board: their traffic to the host shares one PCIe link.
  EXPECT_EQ(c.route(0, 1).channels.front(), c.route(0, 2).channels.front());
  EXPECT_NE(c.route(0, 1).channels.front(), c.route(0, 3).channels.front());
  EXPECT_EQ(load_cluster("k80x9").error().message().rfind("unknown cluster 'k80x9' (presets: ", 0), 0u);
}

}  // namespace
}  // namespace devplace
