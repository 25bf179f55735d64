// The hierarchical planner's policy: shapes, allowed devices, and that the
// REINFORCE signal reaches the grouper as well as the placer.
#include <gtest/gtest.h>

#include "../test_clusters.h"
#include "../test_graphs.h"
#include "cost/cost_model.h"
#include "graph/builder.h"
#include "place/data_clusters.h"
#include "rl/hierarchical_policy.h"

namespace devplace::rl {
namespace {

// A tiny random DAG's co-location groups on the toy cluster.
struct TinyUnits {
  explicit TinyUnits(int ops, uint64_t seed = 3) : g(testing::tiny_dag(seed, ops)) {}
  Graph g;
  Cluster c = testing::toy_cluster();
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  const Problem p = Problem::create(g, c, *cost).value();
  const Grouping units = Grouping::create(p, GroupingOptions{GroupingKind::kColocation});
};

TEST(HierarchicalPolicy, SamplesAllowedDevicesAndTrainsBothParts) {
  torch::manual_seed(1);
  const TinyUnits tiny(12);
  const Problem& p = tiny.p;
  const Grouping& units = tiny.units;
  HierarchicalOptions options;
  options.groups = 4;
  HierarchicalPolicy policy(p, units, options);
  EXPECT_EQ(policy.num_groups(), 4);

  const PolicySample s = policy.sample(5, /*greedy=*/false, 0.0);
  ASSERT_EQ(s.devices.size(0), 5);
  ASSERT_EQ(s.devices.size(1), units.num_groups());
  const auto acc = s.devices.accessor<int64_t, 2>();
  for (int64_t k = 0; k < 5; ++k) {
    for (int32_t u = 0; u < units.num_groups(); ++u) EXPECT_TRUE(units.allows(u, static_cast<DeviceId>(acc[k][u])));
  }
  // One decision per unit (its group), then one per group (its device).
  ASSERT_EQ(s.actions.size(1), units.num_groups() + policy.num_groups());
  ASSERT_EQ(s.log_prob.sizes(), s.actions.sizes());
  ASSERT_EQ(s.entropy.sizes(), s.actions.sizes());
  EXPECT_TRUE(torch::all(s.log_prob <= 0).item<bool>());
  EXPECT_TRUE(torch::all(s.log_prob.sum(1) < 0).item<bool>());
  EXPECT_TRUE(torch::all(s.entropy.sum(1) > 0).item<bool>());
  // evaluate() gives the same decisions the same log-probabilities (no noise was drawn).
  EXPECT_TRUE(torch::allclose(policy.evaluate(s.actions).log_prob, s.log_prob, 1e-4, 1e-5));

  s.log_prob.sum().backward();
  double grouper = 0, placer = 0;
  for (const auto& item : policy.named_parameters()) {
    const double norm = item.value().grad().defined() ? item.value().grad().abs().sum().item<double>() : 0.0;
    (item.key().rfind("grouper", 0) == 0 ? grouper : placer) += norm;
  }
  EXPECT_GT(grouper, 0.0);
  EXPECT_GT(placer, 0.0);

  // Imitation: the log-probability of a given placement, differentiable.
  const torch::Tensor lp = policy.log_prob_of(s.devices.narrow(0, 0, 1));
  ASSERT_TRUE(lp.defined());
  EXPECT_LT(lp.item<double>(), 0.0);
}

// With the neighbour input, each sample's groups get their own placed
// neighbours from its grouping: evaluate() still scores a sample as
// sample() did, and the gradient reaches the neighbour weights.
// The summed absolute gradient of the parameters whose names contain `part`.
double gradient_of(HierarchicalPolicy& policy, const std::string& part) {
  double sum = 0;
  for (const auto& item : policy.named_parameters()) {
    if (item.key().find(part) != std::string::npos && item.value().grad().defined())
      sum += item.value().grad().abs().sum().item<double>();
  }
  return sum;
}

TEST(HierarchicalPolicy, NeighbourDevicesPerSampleGrouping) {
  torch::manual_seed(2);
  const TinyUnits tiny(16);
  HierarchicalOptions options;
  options.groups = 5;
  options.placer.neighbour_devices = true;
  options.placer.affinity = 3.0;
  HierarchicalPolicy policy(tiny.p, tiny.units, options);
  const PolicySample s = policy.sample(6, /*greedy=*/false, 0.0);
  EXPECT_TRUE(torch::allclose(policy.evaluate(s.actions).log_prob, s.log_prob, 1e-4, 1e-5));
  policy.evaluate(s.actions).log_prob.sum().backward();
  EXPECT_GT(gradient_of(policy, "neighbours"), 0.0);
}

// With the load input, each sample's groups carry their units' summed
// work and memory shares: evaluate() still scores a sample as sample() did
// (with the loads' logit weights set away from their zero start, so the
// loads count), and the gradient reaches those weights.
TEST(HierarchicalPolicy, LoadInputPerSampleGrouping) {
  torch::manual_seed(4);
  const TinyUnits tiny(16);
  HierarchicalOptions options;
  options.groups = 5;
  options.placer.load_input = true;
  HierarchicalPolicy policy(tiny.p, tiny.units, options);
  for (auto& item : policy.named_parameters()) {
    if (item.key().find("out_loads") == std::string::npos) continue;
    torch::NoGradGuard no_grad;
    item.value().copy_(torch::tensor({-3.0f, -1.0f}));
  }
  const PolicySample s = policy.sample(6, /*greedy=*/false, 0.0);
  EXPECT_TRUE(torch::allclose(policy.evaluate(s.actions).log_prob, s.log_prob, 1e-4, 1e-5));
  policy.evaluate(s.actions).log_prob.sum().backward();
  EXPECT_GT(gradient_of(policy, "loads"), 0.0);
}

// The locality prior: a fresh grouper draws groups of units that are
// neighbours in topological order; without it, it scatters them.
TEST(HierarchicalPolicy, TheLocalityPriorGroupsNeighbours) {
  const TinyUnits tiny(200, 5);
  const Problem& p = tiny.p;
  const Grouping& units = tiny.units;
  const int64_t nu = units.num_groups();
  auto mean_distance = [&](double width) {
    torch::manual_seed(1);
    HierarchicalOptions options;
    options.groups = 20;
    options.prior = width > 0 ? HierarchicalOptions::Prior::kOrder : HierarchicalOptions::Prior::kNone;
    options.locality_width = width;
    HierarchicalPolicy policy(p, units, options);
    const torch::Tensor groups = policy.sample(8, /*greedy=*/false, 0.0).actions.narrow(1, 0, nu).to(torch::kDouble);  // [K, U]
    const torch::Tensor centre = (torch::arange(nu, torch::kDouble) + 0.5) * (20.0 / static_cast<double>(nu)) - 0.5;
    return (groups - centre.unsqueeze(0)).abs().mean().item<double>();
  };
  ASSERT_GE(nu, 100);
  const double near = mean_distance(2.0), scattered = mean_distance(0.0);
  EXPECT_LT(near, 3.0);
  EXPECT_GT(scattered, 5.0);
}

// The cluster prior: a fresh grouper draws each unit's own cluster with
// the given share; two units of one cluster mostly share a group.
TEST(HierarchicalPolicy, TheClusterPriorDrawsEachUnitsCluster) {
  const TinyUnits tiny(200, 5);
  const Problem& p = tiny.p;
  const Grouping& units = tiny.units;
  const int64_t nu = units.num_groups();
  const std::vector<int32_t> clusters = data_clusters(p, units, 20).value();
  auto own_share = [&](double share, HierarchicalOptions::Prior prior) {
    torch::manual_seed(1);
    HierarchicalOptions options;
    options.groups = 20;
    options.prior = prior;
    options.cluster_share = share;
    HierarchicalPolicy policy(p, units, options);
    const torch::Tensor groups = policy.sample(16, /*greedy=*/false, 0.0).actions.narrow(1, 0, nu);  // [K, U]
    const torch::Tensor own = torch::tensor(std::vector<int64_t>(clusters.begin(), clusters.end())).unsqueeze(0);
    return (groups == own).to(torch::kDouble).mean().item<double>();
  };
  EXPECT_NEAR(own_share(0.9, HierarchicalOptions::Prior::kClusters), 0.9, 0.05);
  EXPECT_NEAR(own_share(0.5, HierarchicalOptions::Prior::kClusters), 0.5, 0.05);
  EXPECT_LT(own_share(0.9, HierarchicalOptions::Prior::kNone), 0.2);
}

// The sampling temperature (--cool-to's schedule) sharpens the grouper's
// decisions and the placer's alike and leaves the greedy decode as it was.
TEST(HierarchicalPolicy, SamplingTemperatureSharpensBothPartsNotTheGreedyChoice) {
  torch::manual_seed(5);
  const TinyUnits tiny(12);
  HierarchicalOptions options;
  options.groups = 4;
  HierarchicalPolicy policy(tiny.p, tiny.units, options);
  const int64_t nu = tiny.units.num_groups();
  const PolicySample greedy = policy.sample(1, /*greedy=*/true, 0.0);
  const PolicySample drawn = policy.sample(6, /*greedy=*/false, 0.0);
  const PolicySample warm = policy.evaluate(drawn.actions);
  policy.set_sampling_temperature(0.25);
  EXPECT_TRUE(torch::equal(policy.sample(1, /*greedy=*/true, 0.0).actions, greedy.actions));
  const PolicySample cold = policy.evaluate(drawn.actions);
  auto part = [&](const torch::Tensor& t, bool grouper) {
    return (grouper ? t.narrow(1, 0, nu) : t.narrow(1, nu, t.size(1) - nu)).mean().item<double>();
  };
  for (bool grouper : {true, false}) {
    EXPECT_LT(part(cold.entropy, grouper), part(warm.entropy, grouper)) << (grouper ? "grouper" : "placer");
    EXPECT_GT(part(warm.entropy, grouper), 0.0) << (grouper ? "grouper" : "placer");
  }
  policy.set_sampling_temperature(1.0);
  EXPECT_TRUE(torch::allclose(policy.evaluate(drawn.actions).log_prob, warm.log_prob));
}

// A unit pinned to the CPU that is drawn into a group does not pin the
// group: the group's other units still go to the GPUs, the pinned one to
// the CPU.
TEST(HierarchicalPolicy, APinnedUnitDoesNotPinItsGroup) {
  GraphBuilder b("pinned");
  const OpId input = b.add_op("input", "Input");
  b.mutable_op(input).pinned_device = "/cpu:0";
  TensorId prev = b.add_output(input, "x", {}, DType::kFloat32, 1000);
  for (int i = 0; i < 6; ++i) {
    const OpId op = b.add_op("mm" + std::to_string(i), "MatMul");
    b.mutable_op(op).flops = 1e10;
    b.add_input(op, prev);
    prev = b.add_output(op, "t" + std::to_string(i), {}, DType::kFloat32, 1000);
  }
  const Graph g = std::move(b).build().value();
  const Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  const Problem p = Problem::create(g, c, *cost).value();
  const Grouping units = Grouping::create(p, GroupingOptions{GroupingKind::kColocation});
  torch::manual_seed(1);
  HierarchicalOptions options;
  options.groups = 1;  // every unit in one group, the pinned input too
  HierarchicalPolicy policy(p, units, options);
  const torch::Tensor devices = policy.sample(32, /*greedy=*/false, 0.0).devices;  // [K, U]
  const auto acc = devices.accessor<int64_t, 2>();
  int off_cpu = 0;
  for (int64_t k = 0; k < devices.size(0); ++k) {
    for (int32_t u = 0; u < units.num_groups(); ++u) {
      const bool pinned = !units.allows(u, 1);
      if (pinned) {
        EXPECT_EQ(p.cluster().device(static_cast<DeviceId>(acc[k][u])).kind, DeviceKind::kCpu);
      }
      if (!pinned && p.cluster().device(static_cast<DeviceId>(acc[k][u])).kind == DeviceKind::kGpu) ++off_cpu;
    }
  }
  EXPECT_GT(off_cpu, 0);
}

}  // namespace
}  // namespace devplace::rl
