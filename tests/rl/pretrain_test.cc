// The portable policy and pretraining: features that do not depend on the
// cluster's size, one network placing clusters of any size, its two forward
// passes agreeing, policy files, pretraining that learns and resumes
// exactly, and the pretrained placer and rl --init within their budgets.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../test_graphs.h"
#include "../test_temp.h"
#include "cluster/cluster_json.h"
#include "cost/cost_model.h"
#include "group/grouping.h"
#include "place/run_placer.h"
#include "rl/features.h"
#include "rl/graph_encoder.h"
#include "rl/portable_policy.h"
#include "rl/pretrain.h"
#include "rl/rl_library.h"
#include "sim/simulator.h"

namespace devplace::rl {
namespace {

[[maybe_unused]] const bool kRegistered = (register_learned_placers(), true);

// A graph on a preset cluster, owning both.
struct Owned {
  Graph graph;
  Cluster cluster;
  std::unique_ptr<CostModel> cost;
  std::unique_ptr<Problem> problem;
  Owned(uint64_t seed, int ops, const std::string& preset)
      : graph(testing::tiny_dag(seed, ops)), cluster(load_cluster(preset).value()), cost(make_default_cost_model()) {
    problem = std::make_unique<Problem>(Problem::create(graph, cluster, *cost).value());
  }
};

std::string temp(const std::string& name) { return testing::temp_file(name).string(); }

// A policy file written by hand: `meta` ([version, hidden, scorer(,
// graph rounds)]) need not match the weights of `net`.
void write_policy_file(const std::string& path, const std::vector<int64_t>& meta, PortableNet net) {
  torch::serialize::OutputArchive archive, net_archive;
  archive.write("devplace_policy", torch::tensor(meta, torch::kLong));
  archive.write("settings", torch::tensor({2.0, 5.0, 3.0}, torch::kDouble));
  archive.write("updates", torch::tensor({int64_t{0}}, torch::kLong));
  net->save(net_archive);
  archive.write("net", net_archive);
  archive.save_to(path);
}

TEST(PortableFeatures, SeeNeitherTheClusterSizeNorTheDeviceOrder) {
  Owned two(3, 14, "k80x2"), four(3, 14, "k80x4");
  GroupingOptions fixed;
  fixed.max_group_share = 0.1;  // the same groups on both clusters
  const Grouping g2 = Grouping::create(*two.problem, fixed), g4 = Grouping::create(*four.problem, fixed);
  ASSERT_EQ(g2.num_groups(), g4.num_groups());
  const PortableFeatures f2 = portable_features(*two.problem, g2), f4 = portable_features(*four.problem, g4);
  EXPECT_EQ(f2.group, f4.group);  // the group part knows nothing of the devices
  EXPECT_EQ(f2.num_devices, 3);
  EXPECT_EQ(f4.num_devices, 5);
  for (int g = 0; g < f4.num_groups; ++g) {
    float fastest = 0;
    for (int d = 0; d < f4.num_devices; ++d) {
      const float* p = &f4.pair[(static_cast<size_t>(g) * 5 + d) * kPairFeatures];
      for (int k = 0; k < kPairFeatures; ++k) {
        EXPECT_GE(p[k], 0.0f);
        EXPECT_LE(p[k], 1.0f);
      }
      if (f4.allowed[static_cast<size_t>(g) * 5 + d]) fastest = std::max(fastest, p[0]);
    }
    EXPECT_FLOAT_EQ(fastest, 1.0f) << "group " << g;
    // The four identical K80 dies look the same: only what the decoder has placed tells them apart.
    for (int d = 2; d < 5; ++d) {
      for (int k = 0; k < kPairFeatures; ++k)
        EXPECT_EQ(f4.pair[(static_cast<size_t>(g) * 5 + d) * kPairFeatures + k], f4.pair[(static_cast<size_t>(g) * 5 + 1) * kPairFeatures + k]);
    }
  }
}

// Both encoders: the sequence one (0 rounds) and the graph one.
class PortableEncoders : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Encoders, PortableEncoders, ::testing::Values(0, 3),
                         [](const ::testing::TestParamInfo<int>& info) { return info.param == 0 ? std::string("Sequence") : std::string("Graph"); });

TEST_P(PortableEncoders, OneNetworkPlacesClustersOfAnySizeAndItsTwoPassesAgree) {
  torch::manual_seed(7);
  PortableOptions options;
  options.graph_rounds = GetParam();
  PortableNet net(options);
  for (const char* preset : {"k80x2", "hetero", "v100x8"}) {
    Owned o(5, 16, preset);
    const Grouping grouping = Grouping::create(*o.problem);
    PortablePolicy policy(net, portable_inputs(*o.problem, grouping));
    torch::manual_seed(11);
    const PolicySample sample = policy.sample(6, /*greedy=*/false, 0.0);
    ASSERT_EQ(sample.devices.size(0), 6);
    ASSERT_EQ(sample.devices.size(1), grouping.num_groups());
    const auto dev = sample.devices.accessor<int64_t, 2>();
    for (int64_t s = 0; s < 6; ++s) {
      for (int32_t g = 0; g < grouping.num_groups(); ++g) {
        ASSERT_GE(dev[s][g], 0);
        ASSERT_LT(dev[s][g], o.problem->num_devices());
        EXPECT_TRUE(grouping.allows(g, static_cast<DeviceId>(dev[s][g])));
      }
    }
    // Re-scoring the sample gives its log-probabilities: pass 2 sees what pass 1 saw.
    const PolicySample again = policy.evaluate(sample.actions);
    EXPECT_TRUE(torch::allclose(again.log_prob, sample.log_prob, 1e-5, 1e-5)) << preset;
    EXPECT_TRUE((sample.log_prob <= 0).all().item<bool>());
    // The greedy decode takes the most likely device at every step, so never
    // one less likely than 1 in D.
    const PolicySample greedy = policy.sample(1, /*greedy=*/true, 0.0);
    const PolicySample scored = policy.evaluate(greedy.actions);
    EXPECT_TRUE((scored.log_prob >= -std::log(static_cast<double>(o.problem->num_devices())) - 1e-5).all().item<bool>()) << preset;
  }
}

TEST(PortablePolicy, FilesRoundTripAndBadFilesAreOneLineErrors) {
  torch::manual_seed(3);
  PortableOptions options;
  options.hidden = 16;
  PortableNet net(options);
  const std::string path = temp("round_trip.pt");
  ASSERT_TRUE(save_portable(path, net).ok());
  Result<LoadedPortable> loaded = load_portable(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_EQ(loaded.value().net->options().hidden, 16);
  EXPECT_FALSE(loaded.value().has_optimizer);
  Owned o(9, 12, "k80x4");
  const Grouping grouping = Grouping::create(*o.problem);
  PortablePolicy a(net, portable_inputs(*o.problem, grouping)), b(loaded.value().net, portable_inputs(*o.problem, grouping));
  EXPECT_TRUE(torch::equal(a.sample(1, true, 0.0).devices, b.sample(1, true, 0.0).devices));

  // Settings that do not match the weights (hidden 32, weights of 16).
  const std::string mismatched = temp("mismatched.pt");
  write_policy_file(mismatched, {1, 32, 32}, net);
  Result<LoadedPortable> wrong = load_portable(mismatched);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message(), mismatched + ": a damaged policy file (a weight has the wrong shape for its settings)");

  const std::string garbage = temp("garbage.pt");
  std::ofstream(garbage) << "not a policy";
  for (const std::string& bad : {garbage, temp("missing.pt")}) {
    Result<LoadedPortable> r = load_portable(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().is_user_error());
    EXPECT_NE(r.error().message().find(bad), std::string::npos) << r.error().message();
    EXPECT_EQ(r.error().message().find('\n'), std::string::npos);
  }
}

TEST_P(PortableEncoders, FilesKeepTheEncoder) {
  torch::manual_seed(4);
  PortableOptions options;
  options.hidden = 8;
  options.graph_rounds = GetParam();
  PortableNet net(options);
  const std::string path = temp("encoder_" + std::to_string(GetParam()) + ".pt");
  ASSERT_TRUE(save_portable(path, net).ok());
  Result<LoadedPortable> loaded = load_portable(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_EQ(loaded.value().net->options().graph_rounds, GetParam());
  Owned o(2, 20, "hetero");
  const Grouping grouping = Grouping::create(*o.problem);
  PortablePolicy a(net, portable_inputs(*o.problem, grouping)), b(loaded.value().net, portable_inputs(*o.problem, grouping));
  torch::manual_seed(5);
  const PolicySample first = a.sample(4, false, 0.0);
  EXPECT_TRUE(torch::allclose(b.evaluate(first.actions).log_prob, first.log_prob, 1e-6, 1e-6));
  // A checkpoint's settings say which encoder it holds (the sequence one as before the graph one existed).
  EXPECT_EQ(a.fixed_settings().find(";graph=") != std::string::npos, GetParam() > 0) << a.fixed_settings();

  // The other encoder's weights under this file's settings: refused.
  const std::string other = temp("encoder_other.pt");
  PortableOptions flipped = options;
  flipped.graph_rounds = GetParam() == 0 ? 2 : 0;
  write_policy_file(other, {1, 8, 32, GetParam()}, PortableNet(flipped));
  Result<LoadedPortable> wrong = load_portable(other);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message().rfind(other + ": a damaged policy file", 0), 0u) << wrong.error().message();
}

// The graph encoder's edges: a group's sources are the groups it exchanges
// bytes with before it, and a source's readers share its successor weight.
TEST(GraphEncoder, EdgesMirrorThePlacedNeighboursAndEachSourceSharesOne) {
  Owned o(6, 30, "k80x4");
  const Grouping grouping = Grouping::create(*o.problem);
  const PlacedNeighbours nb = placed_neighbours(*o.problem, grouping);
  const GraphEdges edges = graph_edges(nb, grouping.num_groups());
  ASSERT_EQ(edges.reader.size(0), static_cast<int64_t>(nb.index.size()));
  ASSERT_GT(edges.reader.size(0), 0);
  const auto reader = edges.reader.accessor<int64_t, 1>();
  const auto source = edges.source.accessor<int64_t, 1>();
  std::map<int64_t, double> share;
  for (int64_t e = 0; e < edges.reader.size(0); ++e) {
    EXPECT_LT(source[e], reader[e]);  // placed before it
    share[source[e]] += edges.successor_weight[e][0].item<double>();
  }
  for (const auto& [s, total] : share) EXPECT_NEAR(total, 1.0, 1e-5) << "group " << s;

  // A change to one group's features reaches its neighbours' states in one
  // round, and nothing else changes but through the graph's mean.
  torch::manual_seed(1);
  GraphEncoder one_round(4, 6, 1);
  const int64_t g = grouping.num_groups();
  torch::Tensor x = torch::rand({g, 4});
  const torch::Tensor before = one_round->forward(x, edges);
  const int64_t changed = source[0];
  x[changed] += 1.0;
  const torch::Tensor after = one_round->forward(x, edges);
  EXPECT_FALSE(torch::allclose(before[reader[0]], after[reader[0]]));
  EXPECT_FALSE(torch::allclose(before[changed], after[changed]));
}

std::map<std::string, std::vector<double>> mean_by_problem(const std::string& log) {
  std::ifstream in(log);
  std::string line;
  std::getline(in, line);
  std::map<std::string, std::vector<double>> out;
  while (std::getline(in, line)) {
    const size_t q1 = line.find('"'), q2 = line.find('"', q1 + 1);
    std::stringstream rest(line.substr(q2 + 2));
    std::string mean;
    std::getline(rest, mean, ',');
    out[line.substr(q1 + 1, q2 - q1 - 1)].push_back(std::stod(mean));
  }
  return out;
}

TEST(Pretrain, LearnsOnASmallCorpusAndResumesExactly) {
  Owned a(21, 14, "k80x2"), b(22, 18, "hetero");
  const std::vector<PretrainProblem> corpus = {{"a on k80x2", "tiny", a.problem.get()}, {"b on hetero", "tiny", b.problem.get()}};
  PretrainOptions options;
  options.updates = 80;
  options.hidden = 16;
  options.seed = 5;
  options.out = temp("straight.pt");
  options.log = temp("straight.csv");
  Result<PretrainSummary> straight = pretrain(corpus, options);
  ASSERT_TRUE(straight.ok()) << straight.error().message();
  EXPECT_EQ(straight.value().updates, 80);
  EXPECT_EQ(straight.value().evaluations, 80 * 16 + 2 * 17);
  ASSERT_EQ(straight.value().rows.size(), 2u);
  // The mean sample of each problem's last 10 visits beats that of its first 10.
  for (const auto& [name, means] : mean_by_problem(options.log)) {
    ASSERT_GE(means.size(), 30u) << name;
    double first = 0, last = 0;
    for (size_t i = 0; i < 10; ++i) {
      first += means[i];
      last += means[means.size() - 1 - i];
    }
    EXPECT_LT(last, first) << name;
  }

  // 30 updates, then a resume to 80, gives the same weights and log rows,
  // without the rows a crashed run wrote after its checkpoint.
  PretrainOptions part = options;
  part.updates = 30;
  part.out = temp("part.pt");
  part.log = temp("resumed.csv");
  part.checkpoint = temp("part.ckpt");
  ASSERT_TRUE(pretrain(corpus, part).ok());
  std::ofstream(part.log, std::ios::app) << "31,\"a on k80x2\",1,1,1,1,1,1,1\n32,\"b on hetero\",1,1";
  PretrainOptions rest = options;
  rest.resume = part.checkpoint;
  rest.out = temp("resumed.pt");
  rest.log = part.log;
  Result<PretrainSummary> resumed = pretrain(corpus, rest);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message();
  EXPECT_EQ(resumed.value().updates, 80);
  EXPECT_EQ(resumed.value().evaluations, 50 * 16 + 2 * 17);
  const std::vector<torch::Tensor> w1 = load_portable(options.out).value().net->parameters();
  const std::vector<torch::Tensor> w2 = load_portable(rest.out).value().net->parameters();
  ASSERT_EQ(w1.size(), w2.size());
  for (size_t i = 0; i < w1.size(); ++i) EXPECT_TRUE(torch::equal(w1[i], w2[i])) << "parameter " << i;
  // Every column but the wall time.
  auto rows = [](const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line.substr(0, line.rfind(',')));
    return out;
  };
  EXPECT_EQ(rows(rest.log), rows(options.log));

  // A policy file has no optimizer state: it is not a checkpoint to resume.
  PretrainOptions wrong = options;
  wrong.resume = options.out;
  Result<PretrainSummary> refused = pretrain(corpus, wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("not a pretraining checkpoint"), std::string::npos);
}

// --average-from: the written policy is the mean of the weights after each
// update past N, the training is the same, and a resume keeps the mean.
TEST(Pretrain, AveragesTheWeightsOfTheLastUpdatesAndResumesTheAverage) {
  Owned a(21, 14, "k80x2");
  const std::vector<PretrainProblem> corpus = {{"a on k80x2", "tiny", a.problem.get()}};
  PretrainOptions options;
  options.hidden = 8;
  options.seed = 3;
  auto weights = [](const std::string& path) { return load_portable(path).value().net->parameters(); };
  // The weights after 4, 5 and 6 updates of the plain run.
  std::vector<std::vector<torch::Tensor>> after;
  for (int64_t n = 4; n <= 6; ++n) {
    PretrainOptions plain = options;
    plain.updates = n;
    plain.out = temp("plain" + std::to_string(n) + ".pt");
    ASSERT_TRUE(pretrain(corpus, plain).ok());
    after.push_back(weights(plain.out));
  }
  PretrainOptions averaged = options;
  averaged.updates = 6;
  averaged.average_from = 3;
  averaged.out = temp("averaged.pt");
  averaged.checkpoint = temp("averaged.ckpt");
  Result<PretrainSummary> run = pretrain(corpus, averaged);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run.value().averaged, 3);
  const std::vector<torch::Tensor> mean = weights(averaged.out);
  ASSERT_EQ(mean.size(), after[0].size());
  bool moved = false;
  for (size_t i = 0; i < mean.size(); ++i) {
    const torch::Tensor expected = (after[0][i] + after[1][i] + after[2][i]) / 3;
    EXPECT_TRUE(torch::allclose(mean[i], expected, 1e-5, 1e-6)) << "parameter " << i;
    moved = moved || !torch::equal(after[0][i], after[2][i]);
  }
  EXPECT_TRUE(moved);  // the updates changed the weights, so the mean is not trivially the last
  // The checkpoint holds the live weights (those after 6 updates), not the mean.
  const std::vector<torch::Tensor> live = weights(averaged.checkpoint);
  for (size_t i = 0; i < live.size(); ++i) EXPECT_TRUE(torch::equal(live[i], after[2][i])) << "parameter " << i;

  // A run of `base` stopped after `updates` (its checkpoint kept), and `base` resumed from a checkpoint.
  auto stopped = [&](PretrainOptions base, int64_t updates, const std::string& name) {
    base.updates = updates;
    base.out = temp(name + ".pt");
    base.checkpoint = temp(name + ".ckpt");
    EXPECT_TRUE(pretrain(corpus, base).ok());
    return base.checkpoint;
  };
  auto resumed_from = [&](PretrainOptions base, const std::string& checkpoint, const std::string& name) {
    base.resume = checkpoint;
    base.out = temp(name + ".pt");
    base.checkpoint = "";
    return base;
  };
  auto expect_mean = [&](const std::string& path) {
    const std::vector<torch::Tensor> w = weights(path);
    for (size_t i = 0; i < w.size(); ++i) EXPECT_TRUE(torch::equal(w[i], mean[i])) << path << " parameter " << i;
  };
  // Stopped after 5 and resumed to 6, it writes the same mean.
  PretrainOptions rest = resumed_from(averaged, stopped(averaged, 5, "averaged5"), "averaged_resumed");
  ASSERT_TRUE(pretrain(corpus, rest).ok());
  expect_mean(rest.out);
  // A resume must average over the same updates.
  rest.average_from = 4;
  Result<PretrainSummary> other = pretrain(corpus, rest);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message().find("resume with --average-from 3"), std::string::npos) << other.error().message();
  rest.average_from = -1;
  EXPECT_FALSE(pretrain(corpus, rest).ok());
  // A checkpoint taken before averaging began resumes into it; one taken after it began, without a mean, does not.
  PretrainOptions later = resumed_from(averaged, stopped(options, 2, "early"), "later");
  ASSERT_TRUE(pretrain(corpus, later).ok());
  expect_mean(later.out);
  later.average_from = 1;
  Result<PretrainSummary> missing = pretrain(corpus, later);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("holds no weight average"), std::string::npos) << missing.error().message();
}

TEST(Pretrained, PlacesWithinItsBudgetAndRepeatsWithTheSeed) {
  torch::manual_seed(1);
  PortableNet net(PortableOptions{});
  const std::string path = temp("placer.pt");
  ASSERT_TRUE(save_portable(path, net).ok());
  Owned o(31, 20, "k80x4");
  Simulator sim(*o.problem);
  PlacerRunOptions run;
  run.method_options = {{"policy", path}, {"samples", "5"}};
  Result<PlacerRun> first = run_placer("pretrained", *o.problem, sim, run);
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(first.value().method, "pretrained");
  EXPECT_EQ(first.value().evaluations, 6);  // the greedy decode and 5 samples
  // Its policy as it placed: not trained here, 5 samples and the greedy
  // decode, the answer the best of them.
  ASSERT_TRUE(first.value().final_policy.has_value());
  const FinalPolicy& f = *first.value().final_policy;
  EXPECT_EQ(f.updates, 0);
  EXPECT_EQ(f.samples, 5);
  ASSERT_TRUE(f.greedy_step_s.has_value());
  const double answer = first.value().evaluation.step_time_s;
  if (f.fit_fraction == 1.0 && !f.greedy_oom) {
    EXPECT_LE(answer, *f.greedy_step_s);
    EXPECT_LE(answer, f.mean_sample_step_s);
  }
  EXPECT_TRUE(std::isnan(f.entropy_per_decision));  // decoding computes no entropy
  Result<PlacerRun> second = run_placer("pretrained", *o.problem, sim, run);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(first.value().placement.device_of_op, second.value().placement.device_of_op);
  run.budget.evaluations = 3;
  Result<PlacerRun> capped = run_placer("pretrained", *o.problem, sim, run);
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(capped.value().evaluations, 3);
  EXPECT_EQ(capped.value().final_policy->samples, 2);

  run.method_options = {{"policy", temp("none.pt")}};
  EXPECT_FALSE(run_placer("pretrained", *o.problem, sim, run).ok());
}

TEST(Pretrained, InitStartsRlFromThePolicyFile) {
  torch::manual_seed(2);
  PortableNet net(PortableOptions{});
  const std::string path = temp("init.pt");
  ASSERT_TRUE(save_portable(path, net).ok());
  Owned o(41, 16, "k80x2");
  Simulator sim(*o.problem);
  PlacerRunOptions run;
  run.budget.evaluations = 64;
  run.method_options = {{"init", path}};
  Result<PlacerRun> r = run_placer("rl", *o.problem, sim, run);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r.value().method, "pretrained>rl");
  EXPECT_LE(r.value().evaluations, 64);
  EXPECT_GE(r.value().evaluations, 48);
  run.method_options = {{"init", path}, {"policy-hidden", "32"}};
  EXPECT_FALSE(run_placer("rl", *o.problem, sim, run).ok());
  run.method_options = {{"init", path}};
  EXPECT_FALSE(run_placer("hierarchical", *o.problem, sim, run).ok());
  run.method_options = {{"init", path}, {"init-temperature", "3"}};
  Result<PlacerRun> hot = run_placer("rl", *o.problem, sim, run);
  ASSERT_TRUE(hot.ok()) << hot.error().message();
  EXPECT_EQ(hot.value().method, "pretrained>rl");
}

// --init-temperature divides the logits: the same weights, flatter
// decisions, the same greedy placement.
TEST(Pretrained, LogitTemperatureFlattensWithoutChangingTheGreedyChoice) {
  torch::manual_seed(8);
  PortableNet net(PortableOptions{});
  Owned o(17, 24, "k80x4");
  const Grouping grouping = Grouping::create(*o.problem);
  PortablePolicy policy(net, portable_inputs(*o.problem, grouping));
  const PolicySample cold = policy.sample(1, /*greedy=*/true, 0.0);
  const double cold_entropy = policy.evaluate(cold.actions).entropy.mean().item<double>();
  const std::string cold_settings = policy.fixed_settings();
  net->set_logit_temperature(3.0);
  const PolicySample hot = policy.sample(1, /*greedy=*/true, 0.0);
  EXPECT_TRUE(torch::equal(hot.devices, cold.devices));
  EXPECT_GT(policy.evaluate(hot.actions).entropy.mean().item<double>(), cold_entropy);
  // A policy made on the hot net (as rl --init makes it): a checkpoint says
  // it was fine-tuned hot, and the cooling schedule's temperature
  // multiplies that base without changing what the checkpoint says.
  PortablePolicy hot_policy(net, portable_inputs(*o.problem, grouping));
  const std::string hot_settings = hot_policy.fixed_settings();
  EXPECT_NE(hot_settings, cold_settings);
  hot_policy.set_sampling_temperature(0.5);
  EXPECT_DOUBLE_EQ(net->logit_temperature(), 1.5);
  EXPECT_EQ(hot_policy.fixed_settings(), hot_settings);
}

}  // namespace
}  // namespace devplace::rl
