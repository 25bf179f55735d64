// Tests that fail when learning breaks: the sign of the advantages and of
// the policy loss, one update moving probability towards the faster
// sample, and a policy trained from scratch whose mean sample improves and
// beats random sampling at the same number of evaluations.
#include <gtest/gtest.h>

#include "../test_temp.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <tuple>

#include "../test_clusters.h"
#include "../test_graphs.h"
#include "cluster/cluster_json.h"
#include "cost/cost_model.h"
#include "group/grouping.h"
#include "place/run_placer.h"
#include "place/search.h"
#include "rl/features.h"
#include "rl/rl_library.h"
#include "rl/policy.h"
#include "rl/reinforce_steps.h"
#include "sim/simulator.h"

namespace devplace::rl {
namespace {

std::vector<double> mean_column(const std::string& path);

// rl and hierarchical run by name, as the CLI runs them.
[[maybe_unused]] const bool kLearnedRegistered = (register_learned_placers(), true);

TEST(Advantages, FasterSamplesScoreHigherWhateverTheKind) {
  const std::vector<double> times = {0.5, 1.0, 2.0, 1.0};
  const std::vector<bool> valid(4, true);
  for (AdvantageKind kind : {AdvantageKind::kMovingAverage, AdvantageKind::kLeaveOneOut, AdvantageKind::kNormalized}) {
    ReinforceOptions options;
    options.advantage = kind;
    double baseline = 0;
    UpdateStats stats;
    const std::vector<float> a = advantages(times, valid, 0, options, baseline, stats);
    EXPECT_GT(a[0], a[1]);
    EXPECT_FLOAT_EQ(a[1], a[3]);
    EXPECT_GT(a[1], a[2]);
    EXPECT_GT(a[0], 0.0f);
    EXPECT_LT(a[2], 0.0f);
    EXPECT_EQ(stats.num_valid, 4);
    EXPECT_DOUBLE_EQ(stats.mean_valid_time_s, 4.5 / 4);
  }
}

TEST(Advantages, NormalizedAreStandardAndRankDoesNotFitLast) {
  ReinforceOptions options;
  options.advantage = AdvantageKind::kNormalized;
  double baseline = 0;
  UpdateStats stats;
  // Sample 3 does not fit: it counts as 100 s but must not squash the others.
  const std::vector<float> a = advantages({0.4, 0.9, 0.6, 100.0}, {true, true, true, false}, 3, options, baseline, stats);
  const double mean = (a[0] + a[1] + a[2]) / 3.0;
  const double var = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) / 3.0 - mean * mean;
  EXPECT_NEAR(mean, 0.0, 1e-6);
  EXPECT_NEAR(var, 1.0, 1e-5);
  EXPECT_LT(a[3], std::min({a[0], a[1], a[2]}));
  EXPECT_EQ(stats.num_valid, 3);
  // Equal times teach nothing.
  const std::vector<float> same = advantages({0.7, 0.7, 0.7}, {true, true, true}, 4, options, baseline, stats);
  for (float v : same) EXPECT_EQ(v, 0.0f);
}

TEST(Advantages, RiskSeekingTeachesOnlyTheBestShare) {
  ReinforceOptions options;
  options.risk_seeking = 0.5;
  double baseline = 0;
  UpdateStats stats;
  // Six samples; sample 5 does not fit and is not counted. The best half
  // of the five that fit (ceil(2.5) = 3: 0.4, 0.5, 0.6) is kept, its worst
  // (0.6) the threshold.
  const std::vector<double> times = {0.6, 0.4, 0.9, 0.5, 1.2, 0.1};
  const std::vector<float> a = advantages(times, {true, true, true, true, true, false}, 2, options, baseline, stats);
  EXPECT_GT(a[1], a[3]);
  EXPECT_GT(a[3], 0.0f);
  for (size_t s : {0, 2, 4, 5}) EXPECT_EQ(a[s], 0.0f) << "sample " << s;
  // Standardised as kNormalized is: the ratio of two gaps is the ratio of
  // their sqrt(t) gaps.
  EXPECT_NEAR(a[1] / a[3], (std::sqrt(0.6) - std::sqrt(0.4)) / (std::sqrt(0.6) - std::sqrt(0.5)), 1e-5);
  options.risk_seeking = 0;
  const std::vector<float> all = advantages(times, {true, true, true, true, true, false}, 2, options, baseline, stats);
  EXPECT_LT(all[4], 0.0f);  // without it, the slow samples are pushed down
  EXPECT_NEAR(all[1] - all[3], a[1] - a[3], 1e-5);
}

// A tiny problem and the seq2seq policy over its co-location groups.
struct TinyPolicy {
  TinyPolicy() {
    torch::manual_seed(7);
    const GroupFeatures f = group_features(problem, units);
    const torch::Tensor features = torch::from_blob(const_cast<float*>(f.values.data()), {f.num_groups, f.dim}, torch::kFloat).clone();
    torch::Tensor allowed = torch::ones({f.num_groups, 3}, torch::kBool);
    policy = std::make_unique<Seq2SeqPolicy>(features, allowed, 3, PolicyOptions{});
  }
  Graph graph = testing::tiny_dag(4, 10);
  Cluster cluster = testing::toy_cluster();
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  Problem problem = Problem::create(graph, cluster, *cost).value();
  Grouping units = Grouping::create(problem, GroupingOptions{GroupingKind::kColocation});
  std::unique_ptr<Seq2SeqPolicy> policy;
};

TEST(PolicyLoss, AStepRaisesTheFasterSampleAndLowersTheSlower) {
  for (const auto& [epochs, clip] : {std::pair{1, 0.0}, std::pair{4, 0.2}}) {
    TinyPolicy tiny;
    Seq2SeqPolicy& policy = *tiny.policy;
    torch::manual_seed(3);
    PolicySample sample = policy.sample(4, /*greedy=*/false, 0.0);
    ASSERT_EQ(sample.log_prob.sizes(), sample.actions.sizes());
    // Sample 0 is made the fastest, sample 3 the slowest.
    ReinforceOptions options;
    double baseline = 0;
    UpdateStats stats;
    const std::vector<float> a = advantages({0.2, 0.5, 0.5, 0.9}, std::vector<bool>(4, true), 0, options, baseline, stats);
    const torch::Tensor before = sample.log_prob.detach().sum(1);
    // Plain gradient steps, so that the step follows the loss's gradient.
    torch::optim::SGD optimizer(policy.parameters(), torch::optim::SGDOptions(0.05));
    for (int e = 0; e < epochs; ++e) {
      const PolicySample now = e == 0 ? sample : policy.evaluate(sample.actions);
      const torch::Tensor loss = policy_loss(a, now, sample.log_prob.detach(), clip, /*entropy_weight=*/0);
      if (e == 0) {
        // At the sampling policy the ratio is 1: the loss is -mean(A) per decision, 0 for standardised A.
        EXPECT_NEAR(loss.item<double>(), clip > 0 ? 0.0 : -(torch::tensor(a).unsqueeze(1) * sample.log_prob).mean().item<double>(), 1e-5);
      }
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
    }
    const torch::Tensor after = policy.evaluate(sample.actions).log_prob.detach().sum(1);
    EXPECT_GT(after[0].item<double>(), before[0].item<double>()) << "epochs " << epochs;
    EXPECT_LT(after[3].item<double>(), before[3].item<double>()) << "epochs " << epochs;
  }
}

TEST(PolicyLoss, TheEntropyBonusRaisesEntropy) {
  TinyPolicy tiny;
  Seq2SeqPolicy& policy = *tiny.policy;
  torch::manual_seed(5);
  PolicySample sample = policy.sample(8, /*greedy=*/false, 0.0);
  const double before = sample.entropy.mean().item<double>();
  torch::optim::Adam optimizer(policy.parameters(), torch::optim::AdamOptions(1e-2));
  const std::vector<float> zero(8, 0.0f);
  for (int step = 0; step < 5; ++step) {
    const PolicySample now = policy.evaluate(sample.actions);
    optimizer.zero_grad();
    policy_loss(zero, now, sample.log_prob.detach(), 0.2, /*entropy_weight=*/1.0).backward();
    optimizer.step();
  }
  EXPECT_GT(policy.evaluate(sample.actions).entropy.mean().item<double>(), before);
}

// The entropy floor is a hinge: below it the loss pays for the shortfall
// (and a step raises the entropy), above it the loss is the surrogate's.
TEST(PolicyLoss, TheEntropyFloorActsOnlyBelowIt) {
  TinyPolicy tiny;
  Seq2SeqPolicy& policy = *tiny.policy;
  torch::manual_seed(5);
  PolicySample sample = policy.sample(8, /*greedy=*/false, 0.0);
  const double before = sample.entropy.mean().item<double>();
  const std::vector<float> zero(8, 0.0f);
  const torch::Tensor logp = sample.log_prob.detach();
  {
    torch::NoGradGuard no_grad;
    const double plain = policy_loss(zero, sample, logp, 0.2, 0.0).item<double>();
    EXPECT_DOUBLE_EQ(policy_loss(zero, sample, logp, 0.2, 0.0, before * 0.5, 1.0).item<double>(), plain);
    EXPECT_NEAR(policy_loss(zero, sample, logp, 0.2, 0.0, before + 0.25, 2.0).item<double>(), plain + 0.5, 1e-5);
  }
  torch::optim::Adam optimizer(policy.parameters(), torch::optim::AdamOptions(1e-2));
  for (int step = 0; step < 5; ++step) {
    const PolicySample now = policy.evaluate(sample.actions);
    optimizer.zero_grad();
    policy_loss(zero, now, logp, 0.2, /*entropy_weight=*/0.0, /*entropy_floor=*/before + 1.0, /*floor_weight=*/1.0).backward();
    optimizer.step();
  }
  EXPECT_GT(policy.evaluate(sample.actions).entropy.mean().item<double>(), before);
}

TEST(EntropyWeight, HalvesEveryHalfLifeWhateverTheBudget) {
  ReinforceOptions options;
  options.entropy_weight = 0.02;
  options.entropy_half_life = 500;
  EXPECT_DOUBLE_EQ(entropy_weight_at(options, 0), 0.02);
  EXPECT_DOUBLE_EQ(entropy_weight_at(options, 500), 0.01);
  EXPECT_DOUBLE_EQ(entropy_weight_at(options, 1500), 0.0025);
  EXPECT_GT(entropy_weight_at(options, 250), 0.01);
  EXPECT_LT(entropy_weight_at(options, 250), 0.02);
  options.entropy_half_life = 0;
  EXPECT_DOUBLE_EQ(entropy_weight_at(options, 100000), 0.02);
}

// The learning rate holds for 100 updates, then falls by the decay every
// 25; --lr-decay sets the factor (1: constant). --warm-start-confidence
// sets where the imitation stops.
TEST(TrainingOptions, LearningRateDecayAndWarmStartConfidence) {
  Cluster cluster = testing::toy_cluster(700'000'000);
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  Graph graph = testing::tiny_dag(1, 5);
  const Problem problem = Problem::create(graph, cluster, *cost).value();
  const Grouping grouping = Grouping::create(problem, GroupingOptions{GroupingKind::kColocation});
  Simulator sim(problem);
  Rng rng(1);
  const PlaceContext ctx{problem, grouping, sim, Budget{}, rng};
  ReinforceOptions given;
  ReinforceOptions options = effective_options(ctx, given);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 99), 1e-3);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 100), 1e-3 * 0.95);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 150), 1e-3 * 0.95 * 0.95 * 0.95);
  given.run = parse_training_options({{"lr-decay", "1"}}).value();
  options = effective_options(ctx, given);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 10000), 1e-3);
  given.run = parse_training_options({{"lr-decay", "0.5"}, {"learning-rate", "0.004"}}).value();
  options = effective_options(ctx, given);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 125), 0.001);
  for (const char* bad : {"0", "1.5", "-0.1", "nan", "x"})
    EXPECT_FALSE(parse_training_options({{"lr-decay", bad}}).ok()) << bad;
  // The warm start's confidence: 0.99 unless given, and only with a warm start.
  EXPECT_DOUBLE_EQ(options.warm_start_confidence, 0.99);
  given.run = parse_training_options({{"warm-start", "fast"}, {"warm-start-confidence", "0.5"}}).value();
  EXPECT_DOUBLE_EQ(effective_options(ctx, given).warm_start_confidence, 0.5);
  EXPECT_FALSE(parse_training_options({{"warm-start-confidence", "0.5"}}).ok());
  for (const char* bad : {"0", "1", "1.5", "x"})
    EXPECT_FALSE(parse_training_options({{"warm-start", "search"}, {"warm-start-confidence", bad}}).ok()) << bad;
}

// The KL estimate: 0 for the policy that drew the batch, positive and
// growing as the log-probabilities move either way.
TEST(MeanKl, IsZeroForTheSamePolicyAndGrowsAsItMoves) {
  const torch::Tensor drawn = torch::log(torch::tensor({{0.5, 0.9}, {0.2, 0.6}}));
  EXPECT_DOUBLE_EQ(mean_kl(drawn, drawn), 0.0);
  const double near = mean_kl(drawn, drawn + 0.1), far = mean_kl(drawn, drawn + 0.5), below = mean_kl(drawn, drawn - 0.5);
  EXPECT_GT(near, 0.0);
  EXPECT_GT(far, near);
  EXPECT_GT(below, near);
  EXPECT_NEAR(near, std::exp(0.1) - 1 - 0.1, 1e-6);  // r - 1 - log r at every decision
}

// --target-kl stops a batch's later epochs once the policy has moved that
// far: with a target no step stays under, training is the one-epoch
// run's to the digit; with one no step reaches, the four-epoch run's.
TEST(TargetKl, StopsTheBatchsLaterEpochs) {
  Graph graph = testing::tiny_dag(11, 24);
  Cluster cluster = testing::toy_cluster(int64_t{4} << 30);
  auto cost = make_default_cost_model();
  const Problem problem = Problem::create(graph, cluster, *cost).value();
  const std::string log = devplace::testing::temp_file("target_kl_test.csv").string();
  auto train = [&](const MethodOptions& extra) {
    Simulator sim(problem);
    PlacerRunOptions options;
    options.grouping.kind = GroupingKind::kColocation;
    options.budget.evaluations = 320;
    options.method_options = extra;
    options.method_options["training-log"] = log;
    const PlacerRun run = run_placer("rl", problem, sim, options).value();
    return std::make_pair(run.evaluation.step_time_s, mean_column(log));
  };
  const auto one_epoch = train({{"epochs", "1"}});
  const auto four_epochs = train({});
  ASSERT_NE(one_epoch.second, four_epochs.second);  // the later epochs change the training
  EXPECT_EQ(train({{"target-kl", "1e-12"}}), one_epoch);
  EXPECT_EQ(train({{"target-kl", "100"}}), four_epochs);
  std::filesystem::remove(log);
  EXPECT_FALSE(parse_training_options({{"target-kl", "-1"}}).ok());
  EXPECT_FALSE(parse_training_options({{"target-kl", "x"}}).ok());
}

// --threads only spreads an update's samples over threads: the training
// log and the answer are those of one thread (compare --reuse relies on
// it, and does not record the option).
TEST(Threads, DoNotChangeWhatALearnedMethodLearns) {
  Graph graph = testing::tiny_dag(11, 24);
  Cluster cluster = testing::toy_cluster(int64_t{4} << 30);
  auto cost = make_default_cost_model();
  const Problem problem = Problem::create(graph, cluster, *cost).value();
  const std::string log = devplace::testing::temp_file("threads_test.csv").string();
  for (const std::string method : {"rl", "hierarchical"}) {
    auto train = [&](const std::string& threads) {
      Simulator sim(problem);
      PlacerRunOptions options;
      options.grouping.kind = GroupingKind::kColocation;
      options.budget.evaluations = 160;
      options.method_options = {{"threads", threads}, {"training-log", log}};
      const PlacerRun run = run_placer(method, problem, sim, options).value();
      return std::make_tuple(run.evaluation.step_time_s, run.placement.device_of_op, mean_column(log));
    };
    EXPECT_EQ(train("1"), train("3")) << method;
  }
  std::filesystem::remove(log);
}

// The stickiness prior: a fresh policy gives neighbouring groups the same
// device more often than without it, and evaluate() scores its samples as
// sample() did.
TEST(Stickiness, AFreshPolicyKeepsNeighboursTogether) {
  TinyPolicy tiny;
  const GroupFeatures f = group_features(tiny.problem, tiny.units);
  const torch::Tensor features = torch::from_blob(const_cast<float*>(f.values.data()), {f.num_groups, f.dim}, torch::kFloat).clone();
  const torch::Tensor allowed = torch::ones({f.num_groups, 3}, torch::kBool);
  auto same_as_previous = [&](double stickiness) {
    torch::manual_seed(3);
    PolicyOptions options;
    options.stickiness = stickiness;
    Seq2SeqPolicy policy(features, allowed, 3, options);
    const PolicySample s = policy.sample(64, /*greedy=*/false, 0.0);
    EXPECT_TRUE(torch::allclose(policy.evaluate(s.actions).log_prob, s.log_prob, 1e-4, 1e-5)) << "stickiness " << stickiness;
    const int64_t g = s.devices.size(1);
    return (s.devices.narrow(1, 1, g - 1) == s.devices.narrow(1, 0, g - 1)).to(torch::kDouble).mean().item<double>();
  };
  const double plain = same_as_previous(0.0), sticky = same_as_previous(3.0);
  EXPECT_LT(plain, 0.6);
  EXPECT_GT(sticky, 0.8);
}

// A small graph's colocation groups on k80x4 (a CPU beside the GPUs, so
// some devices are slower than others), with the rl policy's inputs.
struct K80Units {
  K80Units() {
    const GroupFeatures f = group_features(problem, units);
    features = torch::from_blob(const_cast<float*>(f.values.data()), {f.num_groups, f.dim}, torch::kFloat).clone();
    allowed = torch::zeros({f.num_groups, cluster.num_devices()}, torch::kBool);
    for (int32_t grp = 0; grp < f.num_groups; ++grp) {
      for (DeviceId d = 0; d < cluster.num_devices(); ++d) allowed[grp][d] = units.allows(grp, d);
    }
  }
  Graph graph = testing::tiny_dag(6, 12);
  Cluster cluster = load_cluster("k80x4").value();
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  Problem problem = Problem::create(graph, cluster, *cost).value();
  Grouping units = Grouping::create(problem, GroupingOptions{GroupingKind::kColocation});
  torch::Tensor features, allowed;
};

// The speed prior: a fresh policy puts groups on a device that runs them
// several times slower much less often with it than without, and
// evaluate() scores a sample as sample() did (both add the bonuses).
TEST(SpeedPrior, AFreshPolicyAvoidsSlowDevices) {
  const K80Units k80;
  const int ng = k80.units.num_groups(), nd = k80.cluster.num_devices();
  const std::vector<float> bonus = speed_prior_bonus(k80.units, nd, 2.0);
  const torch::Tensor prior = torch::from_blob(const_cast<float*>(bonus.data()), {ng, nd}, torch::kFloat).clone();
  // The share of decisions on a device at least 2x slower than the group's fastest.
  auto slow_share = [&](bool with_prior) {
    torch::manual_seed(3);
    PolicyOptions options;
    options.speed_prior = with_prior ? 2.0 : 0.0;
    Seq2SeqPolicy policy(k80.features, k80.allowed, nd, options, PlacedNeighbours{}, with_prior ? prior : torch::Tensor());
    const PolicySample s = policy.sample(32, /*greedy=*/false, 0.0);
    EXPECT_TRUE(torch::allclose(policy.evaluate(s.actions).log_prob, s.log_prob, 1e-4, 1e-5));
    const auto dev = s.devices.accessor<int64_t, 2>();
    double slow = 0;
    for (int64_t k = 0; k < s.devices.size(0); ++k) {
      for (int32_t grp = 0; grp < ng; ++grp) slow += bonus[static_cast<size_t>(grp) * nd + dev[k][grp]] < 2.0 * std::log(0.5);
    }
    return slow / static_cast<double>(s.devices.numel());
  };
  const double plain = slow_share(false), with_prior = slow_share(true);
  EXPECT_GT(plain, 0.05);
  EXPECT_LT(with_prior, plain / 3);
}

// The load input: evaluate() scores a sample as sample() did (pass 1 adds
// each chosen group's loads step by step, pass 2 takes them from the given
// devices all at once), and the loads' logit weights start at zero but do
// what they say once set: a negative weight on the work share spreads a
// fresh policy's work over the devices more evenly than none.
TEST(LoadInput, SampleAndEvaluateAgreeAndANegativeWorkWeightBalances) {
  const K80Units k80;
  const int ng = k80.units.num_groups(), nd = k80.cluster.num_devices();
  const PortableFeatures shares = portable_features(k80.problem, k80.units);
  const torch::Tensor work = torch::from_blob(const_cast<float*>(shares.work.data()), {ng, nd}, torch::kFloat).clone();
  const torch::Tensor memory = torch::from_blob(const_cast<float*>(shares.memory.data()), {ng, nd}, torch::kFloat).clone();
  const torch::Tensor loads = torch::stack({work, memory}, 2).contiguous();
  // The mean over samples of the most loaded device's work share.
  auto busiest = [&](double work_weight) {
    torch::manual_seed(3);
    PolicyOptions options;
    options.load_input = true;
    Seq2SeqPolicy policy(k80.features, k80.allowed, nd, options, PlacedNeighbours{}, torch::Tensor(), loads);
    for (auto& param : policy.named_parameters()) {
      if (param.key().find("out_loads") == std::string::npos) continue;
      EXPECT_EQ(param.value().abs().sum().item<float>(), 0.0f);
      torch::NoGradGuard no_grad;
      param.value().copy_(torch::tensor({static_cast<float>(work_weight), -1.0f}));
    }
    const PolicySample s = policy.sample(64, /*greedy=*/false, 0.0);
    const PolicySample scored = policy.evaluate(s.actions);
    EXPECT_TRUE(torch::allclose(scored.log_prob, s.log_prob, 1e-4, 1e-5)) << "work weight " << work_weight;
    // Every parameter learns from the scored samples: the loads are data,
    // and adding them must not cut the gradient of what they join.
    scored.log_prob.sum().backward();
    for (const auto& param : policy.named_parameters()) {
      const torch::Tensor grad = param.value().grad();
      EXPECT_GT(grad.defined() ? grad.abs().sum().item<double>() : 0.0, 0.0) << param.key();
    }
    const torch::Tensor placed = torch::one_hot(s.devices, nd).to(torch::kFloat) * work.unsqueeze(0);  // [K, G, D]
    return std::get<0>(placed.sum(1).max(1)).mean().item<double>();
  };
  const double none = busiest(0.0), balancing = busiest(-30.0);
  EXPECT_LT(balancing, 0.8 * none) << "none " << none << ", balancing " << balancing;
}

// The neighbour input: evaluate() scores a sample as sample() did (pass 1,
// step by step, and pass 2, all steps at once, build the same histograms),
// and with an affinity a fresh policy puts a group with its heaviest placed
// neighbour more often than without.
TEST(NeighbourDevices, SampleAndEvaluateAgreeAndAffinityFollowsTheData) {
  TinyPolicy tiny;
  const GroupFeatures f = group_features(tiny.problem, tiny.units);
  const torch::Tensor features = torch::from_blob(const_cast<float*>(f.values.data()), {f.num_groups, f.dim}, torch::kFloat).clone();
  const torch::Tensor allowed = torch::ones({f.num_groups, 3}, torch::kBool);
  const PlacedNeighbours neighbours = placed_neighbours(tiny.problem, tiny.units);
  std::vector<int32_t> heaviest(f.num_groups, -1);
  for (int32_t g = 0; g < f.num_groups; ++g) {
    float best = 0;
    for (int64_t i = neighbours.offsets[g]; i < neighbours.offsets[g + 1]; ++i) {
      if (neighbours.weight[i] > best) best = neighbours.weight[i], heaviest[g] = neighbours.index[i];
    }
  }
  auto with_heaviest = [&](bool on, double affinity) {
    torch::manual_seed(3);
    PolicyOptions options;
    options.neighbour_devices = on;
    options.affinity = affinity;
    Seq2SeqPolicy policy(features, allowed, 3, options, neighbours);
    const PolicySample s = policy.sample(64, /*greedy=*/false, 0.0);
    EXPECT_TRUE(torch::allclose(policy.evaluate(s.actions).log_prob, s.log_prob, 1e-4, 1e-5)) << "affinity " << affinity;
    const auto dev = s.devices.accessor<int64_t, 2>();
    int64_t same = 0, pairs = 0;
    for (int64_t k = 0; k < s.devices.size(0); ++k) {
      for (int32_t g = 0; g < f.num_groups; ++g) {
        if (heaviest[g] < 0) continue;
        same += dev[k][g] == dev[k][heaviest[g]] ? 1 : 0;
        ++pairs;
      }
    }
    EXPECT_GT(pairs, 0);
    return static_cast<double>(same) / static_cast<double>(pairs);
  };
  const double plain = with_heaviest(false, 0.0), learned = with_heaviest(true, 0.0), prior = with_heaviest(true, 4.0);
  EXPECT_LT(plain, 0.6) << plain;
  EXPECT_LT(learned, 0.6) << learned;  // the learned map starts at zero
  EXPECT_GT(prior, plain + 0.2) << prior << " against " << plain;
}

// The training log's mean_step_s column, one value per update.
std::vector<double> mean_column(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<double> out;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string cell;
    for (int i = 0; i < 4 && std::getline(row, cell, ','); ++i) {
    }
    out.push_back(std::stod(cell));
  }
  return out;
}

class Learning : public ::testing::TestWithParam<std::string> {};

TEST_P(Learning, FromScratchTheMeanSampleImprovesAndBeatsRandomSampling) {
  const std::string method = GetParam();
  // A 24-op random DAG on three devices: 3^24 placements, few of them good.
  Graph graph = testing::tiny_dag(11, 24);
  Cluster cluster = testing::toy_cluster(int64_t{4} << 30);
  auto cost = make_default_cost_model();
  const Problem problem = Problem::create(graph, cluster, *cost).value();
  const std::string log = devplace::testing::temp_file("learning_test.csv").string();
  constexpr int64_t kEvaluations = 1600;
  int better_than_random = 0, improved = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Simulator sim(problem);
    PlacerRunOptions options;
    options.grouping.kind = GroupingKind::kColocation;
    options.budget.evaluations = kEvaluations;
    options.seed = seed;
    options.method_options["training-log"] = log;
    const PlacerRun rl = run_placer(method, problem, sim, options).value();
    EXPECT_EQ(rl.method, method);
    EXPECT_LE(rl.evaluations, kEvaluations);
    const std::vector<double> mean = mean_column(log);
    ASSERT_GE(mean.size(), 50u);
    // The first and last 5 updates' mean samples.
    const double first = std::accumulate(mean.begin(), mean.begin() + 5, 0.0) / 5;
    const double last = std::accumulate(mean.end() - 5, mean.end(), 0.0) / 5;
    // Better than at the start, and converged: the policy's mean sample is
    // its best placement (a policy that did not learn samples worse ones).
    improved += last < first && last <= 1.005 * search_cost_s(problem, rl.evaluation);
    std::printf("seed %d: mean sample %.4f s over the first 5 updates, %.4f s over the last 5\n", static_cast<int>(seed), first, last);
    options.method_options.clear();
    const PlacerRun random = run_placer("random-search", problem, sim, options).value();
    EXPECT_LE(random.evaluations, kEvaluations);
    // The policy's mean sample, not only its best, beats the best of as many random placements.
    std::printf("seed %d: %s best %.4f s, random-search best %.4f s\n", static_cast<int>(seed), method.c_str(), search_cost_s(problem, rl.evaluation),
                search_cost_s(problem, random.evaluation));
    better_than_random += last < search_cost_s(problem, random.evaluation) &&
                          search_cost_s(problem, rl.evaluation) < search_cost_s(problem, random.evaluation);
  }
  std::filesystem::remove(log);
  EXPECT_EQ(improved, 3);
  EXPECT_EQ(better_than_random, 3);
}

INSTANTIATE_TEST_SUITE_P(LearnedMethods, Learning, ::testing::Values("rl", "hierarchical"));

}  // namespace
}  // namespace devplace::rl
