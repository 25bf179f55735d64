// rl: features, determinism, and what REINFORCE finds on tiny graphs
// against the exhaustive optimum.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "../test_clusters.h"
#include "../test_graphs.h"
#include "cluster/cluster_json.h"
#include "common/file_io.h"
#include "common/interrupt.h"
#include "cost/cost_model.h"
#include "place/run_placer.h"
#include "place/search.h"
#include "rl/features.h"
#include "rl/rl_library.h"
#include "sim/simulator.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

// rl and hierarchical run by name, as the CLI runs them.
[[maybe_unused]] const bool kLearnedRegistered = (register_learned_placers(), true);

TEST(RlFeatures, OneRowPerGroupAllInUnitRange) {
  Graph g = build_zoo_model("layered:layers=6,width=3").value();
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  const Grouping grouping = Grouping::create(p);
  const rl::GroupFeatures f = rl::group_features(p, grouping);
  EXPECT_EQ(f.num_groups, grouping.num_groups());
  EXPECT_EQ(f.dim, rl::kTypeBuckets + 6 + rl::kShapeDims + 3);
  for (float v : f.values) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LE(v, 1.0f);
  }
  // The topological position runs from 0 to 1; the device flags match the grouping.
  EXPECT_EQ(f.at(0, rl::kSizeFeatures + 5), 0.0f);
  EXPECT_EQ(f.at(f.num_groups - 1, rl::kSizeFeatures + 5), 1.0f);
  float top_dim = 0;
  for (int32_t grp = 0; grp < f.num_groups; ++grp) {
    for (DeviceId d = 0; d < 3; ++d) EXPECT_EQ(f.at(grp, rl::kDeviceFeatures + d), grouping.allows(grp, d) ? 1.0f : 0.0f);
    // The output shape, right-aligned: a group whose largest output has
    // rank r has zeros before its last r entries and the dims' logs after.
    const Tensor* largest = nullptr;
    for (OpId op : grouping.ops(grp)) {
      for (TensorId t : g.op(op).outputs) {
        if (largest == nullptr || g.tensor(t).bytes > largest->bytes) largest = &g.tensor(t);
      }
    }
    const size_t rank = largest == nullptr ? 0 : std::min<size_t>(largest->shape.size(), rl::kShapeDims);
    for (size_t i = 0; i < rl::kShapeDims - rank; ++i) EXPECT_EQ(f.at(grp, rl::kShapeFeatures + static_cast<int>(i)), 0.0f);
    for (size_t i = rl::kShapeDims - rank; i < rl::kShapeDims; ++i) {
      const float v = f.at(grp, rl::kShapeFeatures + static_cast<int>(i));
      EXPECT_EQ(v > 0.0f, largest->shape[largest->shape.size() - rl::kShapeDims + i] > 0);
      top_dim = std::max(top_dim, v);
    }
  }
  EXPECT_EQ(top_dim, 1.0f);
}

// The speed prior: 0 on a group's fastest device, weight * log(t_min /
// t_d) on the others (so exp of the bonus is the speed ratio at weight 1),
// 0 where the group may not go.
TEST(RlFeatures, SpeedPriorFavoursEachGroupsFastestDevices) {
  Graph g = build_zoo_model("layered:layers=6,width=3").value();
  Cluster c = load_cluster("k80x4").value();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  const Grouping grouping = Grouping::create(p);
  const int nd = c.num_devices();
  const std::vector<float> bonus = rl::speed_prior_bonus(grouping, nd, 2.0);
  ASSERT_EQ(bonus.size(), static_cast<size_t>(grouping.num_groups() * nd));
  int slower = 0;
  for (int32_t grp = 0; grp < grouping.num_groups(); ++grp) {
    double fastest = std::numeric_limits<double>::infinity();
    for (DeviceId d = 0; d < nd; ++d) {
      if (grouping.allows(grp, d)) fastest = std::min(fastest, grouping.work_s(grp, d));
    }
    for (DeviceId d = 0; d < nd; ++d) {
      const float b = bonus[static_cast<size_t>(grp) * nd + d];
      EXPECT_LE(b, 0.0f);
      if (!grouping.allows(grp, d) || !(fastest > 0)) {
        EXPECT_EQ(b, 0.0f);
        continue;
      }
      EXPECT_NEAR(std::exp(b / 2.0), fastest / grouping.work_s(grp, d), 1e-4);
      slower += b < -0.1f;
    }
  }
  EXPECT_GT(slower, 0);  // the CPU is slower than a K80 for some group
  // Weight 0: no bonus at all.
  for (float b : rl::speed_prior_bonus(grouping, nd, 0.0)) EXPECT_EQ(b, 0.0f);
}

// Each group's placed neighbours: only groups before it, each weighted by
// the bytes the pair exchanges (a tensor counts once per reading group)
// over all the bytes the group exchanges. Checked against a count over
// unordered pairs.
TEST(RlFeatures, PlacedNeighboursWeighEarlierGroupsByBytes) {
  Graph g = build_zoo_model("layered:layers=6,width=3").value();
  Cluster c = testing::toy_cluster();
  auto cost = make_default_cost_model();
  Problem p = Problem::create(g, c, *cost).value();
  const Grouping grouping = Grouping::create(p, GroupingOptions{GroupingKind::kColocation});
  const int ng = grouping.num_groups();
  std::map<std::pair<int32_t, int32_t>, double> pair_bytes;
  std::vector<double> total(ng, 0.0);
  for (const Tensor& t : g.tensors()) {
    std::set<int32_t> readers;
    for (OpId op : t.consumers) readers.insert(grouping.group_of(op));
    const int32_t from = grouping.group_of(t.producer);
    readers.erase(from);
    for (int32_t to : readers) {
      pair_bytes[{std::min(from, to), std::max(from, to)}] += static_cast<double>(t.bytes);
      total[from] += static_cast<double>(t.bytes);
      total[to] += static_cast<double>(t.bytes);
    }
  }
  const rl::PlacedNeighbours n = rl::placed_neighbours(p, grouping);
  ASSERT_EQ(n.offsets.size(), static_cast<size_t>(ng) + 1);
  size_t entries = 0;
  for (int32_t grp = 0; grp < ng; ++grp) {
    double sum = 0;
    for (int64_t i = n.offsets[grp]; i < n.offsets[grp + 1]; ++i) {
      const int32_t q = n.index[i];
      ASSERT_LT(q, grp);
      if (i > n.offsets[grp]) {
        EXPECT_GT(q, n.index[i - 1]);
      }
      EXPECT_NEAR(n.weight[i], pair_bytes.at({q, grp}) / total[grp], 1e-6);
      sum += n.weight[i];
      ++entries;
    }
    EXPECT_LE(sum, 1.0 + 1e-5);
  }
  size_t earlier_pairs = 0;
  for (const auto& [pair, bytes] : pair_bytes) earlier_pairs += bytes > 0 ? 1 : 0;
  EXPECT_EQ(entries, earlier_pairs);
  // The last group (the loss and its gradient) talks only to groups before it.
  double last = 0;
  for (int64_t i = n.offsets[ng - 1]; i < n.offsets[ng]; ++i) last += n.weight[i];
  EXPECT_NEAR(last, 1.0, 1e-5);
}

PlacerRun run(const std::string& method, const Problem& p, Simulator& sim, int64_t evaluations, uint64_t seed,
              bool paper_recipe = false, const char* warm_start = nullptr) {
  PlacerRunOptions options;
  if (warm_start) options.method_options["warm-start"] = warm_start;
  options.grouping.kind = GroupingKind::kColocation;
  options.budget.evaluations = evaluations;
  options.seed = seed;
  if (paper_recipe) options.method_options["recipe"] = "paper";
  return run_placer(method, p, sim, options).value();
}

// A tiny random DAG on the toy cluster, with its simulator.
struct TinyProblem {
  explicit TinyProblem(uint64_t seed, int ops = 7)
      : graph(testing::tiny_dag(seed, ops)), problem(Problem::create(graph, cluster, *cost).value()), sim(problem) {}
  Cluster cluster = testing::toy_cluster(700'000'000);
  std::unique_ptr<CostModel> cost = make_default_cost_model();
  Graph graph;
  Problem problem;
  Simulator sim;
};

TEST(Rl, SameSeedSamePlacement) {
  TinyProblem tiny(2);
  const Problem& p = tiny.problem;
  Simulator& sim = tiny.sim;
  const PlacerRun a = run("rl", p, sim, 161, 5);
  const PlacerRun b = run("rl", p, sim, 161, 5);
  EXPECT_EQ(a.placement, b.placement);
  EXPECT_LE(a.evaluations, 161);  // warm start, updates of 8 samples, the greedy decode and the polish
  EXPECT_GE(a.evaluations, 150);
}

TEST(Rl, PolicySizeAndAttentionAreOptions) {
  // --policy-hidden and --attention build another network: same seed, same
  // placement, and a checkpoint of one size does not load into the other.
  TinyProblem tiny(3);
  const std::string ckpt = (std::filesystem::temp_directory_path() / ("devplace_rl_size_" + std::to_string(::getpid()) + ".ckpt")).string();
  auto sized = [&](int hidden, const std::string& attention, const std::string& checkpoint, const std::string& resume,
                   const std::string& affinity = "3", const std::string& load_input = "off") {
    PlacerRunOptions options;
    options.grouping.kind = GroupingKind::kColocation;
    options.seed = 2;
    options.method_options = {{"iterations", "3"}, {"policy-hidden", std::to_string(hidden)}, {"attention", attention},
                              {"warm-start", "none"}, {"affinity", affinity}, {"load-input", load_input}};
    if (!checkpoint.empty()) options.method_options["checkpoint"] = checkpoint;
    if (!resume.empty()) options.method_options["resume"] = resume;
    return run_placer("rl", tiny.problem, tiny.sim, options);
  };
  const PlacerRun a = sized(8, "additive", ckpt, "").value();
  const PlacerRun b = sized(8, "additive", "", "").value();
  EXPECT_EQ(a.placement, b.placement);
  EXPECT_TRUE(sized(8, "additive", "", ckpt).ok());
  const Result<PlacerRun> other = sized(16, "additive", "", ckpt);
  ASSERT_FALSE(other.ok());
  const std::string refused = ": made for a network of another shape or settings (another --policy-hidden, --attention, "
                              "--neighbours, --stickiness, --affinity or --load-input)";
  EXPECT_EQ(other.error().message(), ckpt + refused);
  const Result<PlacerRun> multiplicative = sized(8, "multiplicative", "", ckpt);
  ASSERT_FALSE(multiplicative.ok());
  // The affinity is no parameter, but a resume under another would change
  // the decisions: refused too.
  const Result<PlacerRun> affinity = sized(8, "additive", "", ckpt, "1");
  ASSERT_FALSE(affinity.ok());
  EXPECT_EQ(affinity.error().message(), ckpt + refused);
  // The load input adds parameters (its decoder weights): refused.
  const Result<PlacerRun> loads = sized(8, "additive", "", ckpt, "3", "on");
  ASSERT_FALSE(loads.ok());
  EXPECT_EQ(loads.error().message(), ckpt + refused);
  std::filesystem::remove(ckpt);
}

TEST(Rl, NearTheExhaustiveOptimumOnTinyGraphs) {
  // Ten tiny graphs (7 ops, 3 devices: 2,187 placements), 321 evaluations
  // each (15% of the space): the paper's recipe and devplace's, both from a
  // random policy, and devplace's after local-search's placement
  // (local-search>rl). Counts the graphs where each reaches the optimum.
  Cluster c = testing::toy_cluster(700'000'000);
  auto cost = make_default_cost_model();
  int optimal[3] = {0, 0, 0}, close[3] = {0, 0, 0};
  const bool paper[3] = {true, false, false};
  const char* warm[3] = {nullptr, nullptr, "search"};
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    Graph g = testing::tiny_dag(seed, 7);
    Problem p = Problem::create(g, c, *cost).value();
    Simulator sim(p);
    const double best = search_cost_s(p, run("exhaustive", p, sim, 0, 1).evaluation);
    for (int config = 0; config < 3; ++config) {
      const PlacerRun r = run("rl", p, sim, 321, seed, paper[config], warm[config]);
      EXPECT_EQ(r.method, config == 2 ? "local-search>rl" : "rl");
      const double found = search_cost_s(p, r.evaluation);
      EXPECT_GE(found, best - 1e-12);
      if (found <= best + 1e-12) ++optimal[config];
      if (found <= 1.1 * best) ++close[config];
    }
  }
  std::printf("rl, paper recipe: the exhaustive optimum on %d of 10 tiny graphs, within 10%% on %d\n", optimal[0], close[0]);
  std::printf("rl, default recipe: the exhaustive optimum on %d of 10 tiny graphs, within 10%% on %d\n", optimal[1], close[1]);
  std::printf("local-search>rl: the exhaustive optimum on %d of 10, within 10%% on %d\n", optimal[2], close[2]);
  EXPECT_GE(close[0], 7);
  EXPECT_GE(optimal[1], 8);
  EXPECT_GE(optimal[2], 8);
}

TEST(Learned, EveryTrainerHonoursTheEvaluationBudget) {
  // Budgets below one update, between updates, and with warm start and
  // polish stages: no learned method evaluates more than it was given.
  TinyProblem tiny(8, 10);
  for (const char* method : {"rl", "hierarchical"}) {
    for (int64_t budget : {3, 10, 57, 300}) {
      for (int config = 0; config < 4; ++config) {
        PlacerRunOptions options;
        options.grouping.kind = GroupingKind::kColocation;
        options.budget.evaluations = budget;
        if (config == 1) options.method_options["recipe"] = "paper";
        if (config == 2) options.method_options["warm-start"] = "search";
        if (config == 3) options.method_options["warm-start"] = "fast";
        if (config >= 2) options.method_options["polish"] = "1000";
        const Result<PlacerRun> r = run_placer(method, tiny.problem, tiny.sim, options);
        ASSERT_TRUE(r.ok()) << method << " budget " << budget << " config " << config << ": " << r.error().message();
        EXPECT_LE(r.value().evaluations, budget) << method << " config " << config;
        EXPECT_GT(r.value().evaluations, 0) << method << " config " << config;
        if (config == 2) {
          EXPECT_EQ(r.value().method, std::string("local-search>") + method + ">local-search");
        }
        if (config == 3) {
          EXPECT_EQ(r.value().method, std::string("fast>") + method + ">local-search");
        }
      }
    }
  }
}

TEST(Hierarchical, ValidDeterministicAndNoWorseThanOneGpu) {
  TinyProblem tiny(6, 8);
  const Problem& p = tiny.problem;
  Simulator& sim = tiny.sim;
  const PlacerRun a = run("hierarchical", p, sim, 200, 4);
  const PlacerRun b = run("hierarchical", p, sim, 200, 4);
  EXPECT_EQ(a.placement, b.placement);
  EXPECT_LE(a.evaluations, 200);
  const double one_gpu = search_cost_s(p, run("single-gpu", p, sim, 0, 1).evaluation);
  EXPECT_LE(search_cost_s(p, a.evaluation), one_gpu);
  // It places co-location groups whatever grouping it is given.
  const Grouping units = Grouping::create(p, GroupingOptions{GroupingKind::kColocation});
  for (int32_t u = 0; u < units.num_groups(); ++u) {
    for (OpId op : units.ops(u)) EXPECT_EQ(a.placement.device_of_op[op], a.placement.device_of_op[units.ops(u)[0]]);
  }
}

// Resume and checkpoints: a run stopped after 3 of 6 updates and resumed
// from its checkpoint ends exactly where the uninterrupted run does, and
// their training logs agree row for row (but for the wall time).
class RlCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    graph_.emplace(testing::tiny_dag(4, 8));
    cluster_.emplace(testing::toy_cluster(700'000'000));
    problem_ = std::make_unique<Problem>(Problem::create(*graph_, *cluster_, *cost_).value());
    dir_ = std::filesystem::temp_directory_path() / ("devplace_rl_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  Result<PlacerRun> train(int64_t iterations, const std::string& log, const std::string& checkpoint, const std::string& resume,
                          Evaluator* evaluator = nullptr, const MethodOptions& extra = {}) {
    Simulator sim(*problem_);
    PlacerRunOptions options;
    options.grouping.kind = GroupingKind::kColocation;
    options.seed = 3;
    options.method_options = {{"iterations", std::to_string(iterations)}, {"checkpoint-every", "1"}};
    if (!log.empty()) options.method_options["training-log"] = log;
    if (!checkpoint.empty()) options.method_options["checkpoint"] = checkpoint;
    if (!resume.empty()) options.method_options["resume"] = resume;
    // The fast placers' warm start: a few evaluations, so that the
    // evaluation counts below fall in the updates.
    options.method_options["warm-start"] = "fast";
    for (const auto& [name, value] : extra) options.method_options[name] = value;
    return run_placer("rl", *problem_, evaluator ? *evaluator : sim, options);
  }

  // The log's rows without the wall-time column.
  std::vector<std::string> rows(const std::string& log) const {
    std::ifstream in(log);
    std::vector<std::string> out;
    std::string line;
    while (std::getline(in, line)) {
      const size_t first = line.find(',');
      const size_t second = line.find(',', first + 1);
      out.push_back(line.substr(0, first) + line.substr(second));
    }
    return out;
  }

  std::optional<Graph> graph_;
  std::optional<Cluster> cluster_;
  std::unique_ptr<CostModel> cost_ = make_default_cost_model();
  std::unique_ptr<Problem> problem_;
  std::filesystem::path dir_;
};

TEST_F(RlCheckpoint, ResumedRunRepeatsTheUninterruptedOne) {
  const PlacerRun whole = train(6, path("whole.csv"), "", "").value();
  const PlacerRun first = train(3, path("split.csv"), path("ck"), "").value();
  ASSERT_TRUE(std::filesystem::exists(path("ck")));
  const PlacerRun rest = train(6, path("split.csv"), path("ck"), path("ck")).value();
  EXPECT_EQ(rest.placement, whole.placement);
  EXPECT_DOUBLE_EQ(rest.evaluation.step_time_s, whole.evaluation.step_time_s);
  const std::vector<std::string> a = rows(path("whole.csv")), b = rows(path("split.csv"));
  ASSERT_EQ(a.size(), 7u);  // the header and 6 updates
  EXPECT_EQ(a, b);
  EXPECT_EQ(a[0].substr(0, 9), "iteration");
  // The resumed run reports the training before it and in all, as the log
  // counts them (3 updates of 8 samples each, then 6).
  EXPECT_FALSE(whole.resumed.has_value());
  EXPECT_FALSE(first.resumed.has_value());
  ASSERT_TRUE(rest.resumed.has_value());
  EXPECT_EQ(rest.resumed->checkpoint, path("ck"));
  EXPECT_EQ(rest.resumed->updates_before, 3);
  EXPECT_EQ(rest.resumed->updates_total, 6);
  const int64_t per_update = rest.resumed->evaluations_before / 3;
  EXPECT_GT(per_update, 0);
  EXPECT_EQ(rest.resumed->evaluations_total, 6 * per_update);
  EXPECT_GT(rest.resumed->seconds_before, 0);
  EXPECT_GT(rest.resumed->seconds_total, rest.resumed->seconds_before);
  // This run's own count: its 3 updates and the final greedy decode.
  EXPECT_EQ(rest.evaluations, 3 * per_update + 1);
}

// Stops the run (as Ctrl-C would) after a number of evaluations.
class InterruptingEvaluator : public Evaluator {
 public:
  InterruptingEvaluator(const Problem& p, int64_t after) : sim_(p), after_(after) {}
  std::string_view name() const override { return "interrupting"; }
  Result<Evaluation> evaluate(const Placement& placement) override {
    if (++num_evaluations_ == after_) request_interrupt();
    return sim_.evaluate(placement);
  }

 private:
  Simulator sim_;
  int64_t after_;
};

TEST_F(RlCheckpoint, InterruptSavesACheckpointThatResumesExactly) {
  const PlacerRun whole = train(6, "", "", "").value();
  clear_interrupt();
  InterruptingEvaluator stopper(*problem_, 20);  // during the third update
  const PlacerRun stopped = train(6, "", path("ck"), "", &stopper).value();
  ASSERT_TRUE(interrupt_requested());
  clear_interrupt();
  // Only the warm start and the updates before the interrupt ran: no
  // greedy decode and no polish.
  EXPECT_LE(stopped.evaluations, 20 + 8);
  EXPECT_LT(stopped.evaluations, whole.evaluations);
  const PlacerRun rest = train(6, "", "", path("ck")).value();
  EXPECT_EQ(rest.placement, whole.placement);
}

// What a run reports of its policy at the end is the training log's last
// update (its samples' mean step time, entropy and share that fit) and the
// greedy decode it evaluated last; the answer is no worse than either.
TEST_F(RlCheckpoint, FinalPolicyIsTheLogsLastUpdateAndItsGreedyDecode) {
  const PlacerRun r = train(5, path("final.csv"), "", "").value();
  ASSERT_TRUE(r.final_policy.has_value());
  const FinalPolicy& f = *r.final_policy;
  std::ifstream in(path("final.csv"));
  std::string line, last;
  while (std::getline(in, line)) last = line;
  std::vector<double> cells;
  std::istringstream fields(last);
  for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(std::stod(cell));
  // iteration, wall_s, evaluations, mean_step_s, best_step_s, baseline_s, entropy, valid_fraction, learning_rate, restarts
  ASSERT_EQ(cells.size(), 10u) << last;
  EXPECT_EQ(cells[9], 0);  // no --restart-after
  EXPECT_EQ(f.restarts, 0);
  EXPECT_EQ(f.updates, 5);
  EXPECT_EQ(f.updates, static_cast<int64_t>(cells[0]));
  EXPECT_EQ(f.samples, 16);  // the default draws 16 per update
  EXPECT_NEAR(f.mean_sample_step_s, cells[3], 1e-5 * cells[3]);
  EXPECT_NEAR(f.entropy_per_decision, cells[6], 1e-5 * cells[6] + 1e-9);
  EXPECT_NEAR(f.fit_fraction, cells[7], 1e-6);
  ASSERT_TRUE(f.greedy_step_s.has_value());
  EXPECT_GT(*f.greedy_step_s, 0);
  EXPECT_LE(search_cost_s(*problem_, r.evaluation), *f.greedy_step_s * (1 + 1e-12));
  EXPECT_LE(r.evaluation.step_time_s, cells[4] * (1 + 1e-5));  // the log's best so far
  // A run stopped by Ctrl-C has no greedy decode, and says so.
  clear_interrupt();
  InterruptingEvaluator stopper(*problem_, 20);
  const PlacerRun stopped = train(6, "", path("stopped.ckpt"), "", &stopper).value();
  clear_interrupt();
  ASSERT_TRUE(stopped.final_policy.has_value());
  EXPECT_LT(stopped.final_policy->updates, 6);
  EXPECT_FALSE(stopped.final_policy->greedy_step_s.has_value());
}

// --cool-to: the first update samples at temperature 1, as without it, and
// the last ones sharper (lower entropy per decision in the log); the
// schedule follows the updates, so an interrupted run resumes exactly; and
// a clock alone is no schedule.
TEST_F(RlCheckpoint, CoolingSharpensTheLaterSamplesAndResumesExactly) {
  const MethodOptions cool{{"cool-to", "0.05"}};
  const PlacerRun plain = train(6, path("plain.csv"), "", "").value();
  const PlacerRun whole = train(6, path("cool.csv"), "", "", nullptr, cool).value();
  const std::vector<std::string> a = rows(path("plain.csv")), b = rows(path("cool.csv"));
  ASSERT_EQ(a.size(), 7u);
  ASSERT_EQ(b.size(), 7u);
  EXPECT_EQ(a[1], b[1]);
  auto entropy = [](const std::string& row) {  // the sixth field of a row without its wall time
    size_t at = 0;
    for (int i = 0; i < 5; ++i) at = row.find(',', at) + 1;
    return std::stod(row.substr(at));
  };
  EXPECT_LT(entropy(b[6]), 0.5 * entropy(a[6]));

  clear_interrupt();
  InterruptingEvaluator stopper(*problem_, 20);
  ASSERT_TRUE(train(6, "", path("ck"), "", &stopper, cool).ok());
  ASSERT_TRUE(interrupt_requested());
  clear_interrupt();
  const PlacerRun rest = train(6, "", "", path("ck"), nullptr, cool).value();
  EXPECT_EQ(rest.placement, whole.placement);

  Simulator sim(*problem_);
  PlacerRunOptions clock_only;
  clock_only.budget.seconds = 1;
  clock_only.method_options = cool;
  const Result<PlacerRun> refused = run_placer("rl", *problem_, sim, clock_only);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(), "--cool-to needs --iterations or --evaluations: the temperature falls over them");
}

// --restart-after N: once N evaluations pass without a better placement,
// the policy goes back to its initial parameters. The log counts the
// restarts; the first update after one samples from the initial policy
// again (its entropy per decision is the first update's, not the sharper
// one's before the restart); the answer is still the best placement ever
// evaluated; and a run stopped between restarts resumes exactly.
TEST_F(RlCheckpoint, RestartsReturnToTheInitialPolicyKeepTheBestAndResumeExactly) {
  const MethodOptions restarts{{"warm-start", "none"}, {"restart-after", "48"}, {"learning-rate", "0.02"}};
  const PlacerRun whole = train(24, path("whole.csv"), "", "", nullptr, restarts).value();
  std::vector<std::vector<double>> cells;
  {
    std::ifstream in(path("whole.csv"));
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line.substr(line.rfind(',') + 1), "restarts");
    while (std::getline(in, line)) {
      std::vector<double> row;
      std::istringstream fields(line);
      for (std::string cell; std::getline(fields, cell, ',');) row.push_back(cell.empty() ? std::nan("") : std::stod(cell));
      ASSERT_EQ(row.size(), 10u) << line;
      cells.push_back(row);
    }
  }
  ASSERT_EQ(cells.size(), 24u);
  ASSERT_TRUE(whole.final_policy.has_value());
  EXPECT_EQ(whole.final_policy->restarts, static_cast<int64_t>(cells.back()[9]));
  ASSERT_GT(whole.final_policy->restarts, 0);
  double best = std::numeric_limits<double>::infinity();
  size_t checked = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    best = std::min(best, cells[i][4]);
    if (i == 0) continue;
    EXPECT_GE(cells[i][9], cells[i - 1][9]);  // a count
    if (cells[i][9] > cells[i - 1][9] && i + 1 < cells.size() && cells[i][6] < 0.8 * cells[0][6]) {
      // Update i + 1 (row i + 1) is the restarted policy's first: as uncertain as the first update's.
      EXPECT_NEAR(cells[i + 1][6], cells[0][6], 0.1 * cells[0][6]) << "after the restart at update " << i + 1;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u) << "no restart came after the policy had sharpened";
  EXPECT_LE(whole.evaluation.step_time_s, best * (1 + 1e-5));

  clear_interrupt();
  InterruptingEvaluator stopper(*problem_, 16 * 13 + 5);  // during the 14th update
  ASSERT_TRUE(train(24, "", path("ck"), "", &stopper, restarts).ok());
  ASSERT_TRUE(interrupt_requested());
  clear_interrupt();
  const PlacerRun rest = train(24, "", "", path("ck"), nullptr, restarts).value();
  EXPECT_EQ(rest.placement, whole.placement);
  ASSERT_TRUE(rest.final_policy.has_value());
  EXPECT_EQ(rest.final_policy->restarts, whole.final_policy->restarts);
  // The last update's entropy (its mean sample may be undefined: none fit).
  EXPECT_DOUBLE_EQ(rest.final_policy->entropy_per_decision, whole.final_policy->entropy_per_decision);

  const Result<PlacerRun> refused = train(4, "", "", "", nullptr, {{"restart-after", "48"}});  // the fixture's --warm-start fast
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("--restart-after and --warm-start do not go together"), std::string::npos);
}

TEST_F(RlCheckpoint, InterruptedRunsWithoutACheckpointNameNeverOverwriteEachOther) {
  const std::filesystem::path here = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  for (int run = 0; run < 2; ++run) {
    clear_interrupt();
    InterruptingEvaluator stopper(*problem_, 20);
    ASSERT_TRUE(train(6, "", "", "", &stopper).ok());
  }
  clear_interrupt();
  std::filesystem::current_path(here);
  EXPECT_TRUE(std::filesystem::exists(path("rl-interrupted.ckpt")));
  EXPECT_TRUE(std::filesystem::exists(path("rl-interrupted-2.ckpt")));
  // Each resumes.
  EXPECT_TRUE(train(6, "", "", path("rl-interrupted-2.ckpt")).ok());
}

// Fails every evaluation once a training log holds `rows` updates, as a
// measurer that can no longer start would.
class FailingEvaluator : public Evaluator {
 public:
  FailingEvaluator(const Problem& p, std::string log, int64_t rows) : sim_(p), log_(std::move(log)), rows_(rows) {}
  std::string_view name() const override { return "failing"; }
  Result<Evaluation> evaluate(const Placement& placement) override {
    ++num_evaluations_;
    std::ifstream in(log_);
    int64_t lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    if (lines > rows_) return invalid_input("failing: no more evaluations");  // the header and `rows` updates
    return sim_.evaluate(placement);
  }

 private:
  Simulator sim_;
  std::string log_;
  int64_t rows_;
};

TEST_F(RlCheckpoint, PeriodicCheckpointAfterAFailureResumesExactly) {
  // The run dies during its fourth update; the checkpoint written after
  // the third holds 3 updates, and the resumed run repeats the whole one
  // row for row.
  const PlacerRun whole = train(6, path("whole.csv"), "", "").value();
  FailingEvaluator failing(*problem_, path("split.csv"), 3);
  Result<PlacerRun> died = train(6, path("split.csv"), path("ck"), "", &failing);
  ASSERT_FALSE(died.ok());
  EXPECT_EQ(rows(path("split.csv")).size(), 4u);
  ASSERT_TRUE(std::filesystem::exists(path("ck")));
  const PlacerRun rest = train(6, path("split.csv"), "", path("ck")).value();
  EXPECT_EQ(rest.placement, whole.placement);
  const std::vector<std::string> a = rows(path("whole.csv")), b = rows(path("split.csv"));
  ASSERT_EQ(a.size(), 7u);
  EXPECT_EQ(a, b);
}

TEST_F(RlCheckpoint, BadCheckpointsAreOneLineErrorsNamingTheFile) {
  write_text_file(path("junk"), "not a checkpoint").ok();
  Result<PlacerRun> junk = train(2, "", "", path("junk"));
  ASSERT_FALSE(junk.ok());
  EXPECT_TRUE(junk.error().is_user_error());
  EXPECT_NE(junk.error().message().find(path("junk")), std::string::npos);
  EXPECT_EQ(junk.error().message().find('\n'), std::string::npos);

  // A checkpoint of another problem (another graph size) is refused.
  ASSERT_TRUE(train(1, "", path("ck"), "").ok());
  graph_.emplace(testing::tiny_dag(5, 6));
  problem_ = std::make_unique<Problem>(Problem::create(*graph_, *cluster_, *cost_).value());
  Result<PlacerRun> other = train(2, "", "", path("ck"));
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message().find("made for"), std::string::npos) << other.error().message();
}

}  // namespace
}  // namespace devplace
