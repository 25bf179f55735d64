// The expert placement on the zoo's models, and its simulated step times
// against the CPU-only and single-GPU baselines.
#include "place/expert.h"
#include "place/run_placer.h"

#include <gtest/gtest.h>

#include "cluster/cluster_json.h"
#include "cost/cost_model.h"
#include "sim/simulator.h"
#include "zoo/zoo.h"

namespace devplace {
namespace {

struct Zoo {
  Zoo(const std::string& spec, const std::string& cluster_name)
      : graph(build_zoo_model(spec).value()), cluster(preset(cluster_name)), cost(make_default_cost_model()),
        problem(Problem::create(graph, cluster, *cost).value()), sim(problem) {}
  static Cluster preset(const std::string& name) {
    setenv("DEVPLACE_CLUSTERS", DEVPLACE_CLUSTERS_DIR, 1);
    return load_cluster(name).value();
  }
  Placement place(const std::string& method) {
    Placement p = run_placer(method, problem, sim).value().placement;
    EXPECT_TRUE(check_placement(problem, p).ok());
    return p;
  }
  Evaluation simulate(const Placement& p) { return sim.evaluate(p).value(); }
  const std::string& device_of(const Placement& p, const std::string& op) {
    return cluster.device(p.device_of_op[*graph.find_op(op)]).name;
  }
  Graph graph;
  Cluster cluster;
  std::unique_ptr<CostModel> cost;
  Problem problem;
  Simulator sim;
};

TEST(Expert, RnnlmPutsOneLstmLayerPerGpu) {
  Zoo z("rnnlm:steps=4", "k80x2");
  Placement p = z.place("expert");
  EXPECT_EQ(z.device_of(p, "embedding"), "/gpu:0");
  EXPECT_EQ(z.device_of(p, "t3/lstm0/MatMul"), "/gpu:0");
  EXPECT_EQ(z.device_of(p, "t3/lstm1/MatMul"), "/gpu:1");
  EXPECT_EQ(z.device_of(p, "t3/lstm1/MatMul/grad"), "/gpu:1");
  EXPECT_EQ(z.device_of(p, "softmax/weights/update"), "/gpu:1");
  EXPECT_EQ(z.device_of(p, "t0/input_ids"), "/cpu:0");  // data stays on the host
}

TEST(Expert, NmtOnFourGpusGivesEachLstmLayerItsOwn) {
  Zoo z("nmt:steps=3", "k80x4");
  Placement p = z.place("expert");
  EXPECT_EQ(z.device_of(p, "encoder/t0/lstm0/MatMul"), "/gpu:0");
  EXPECT_EQ(z.device_of(p, "encoder/t0/lstm1/MatMul"), "/gpu:1");
  EXPECT_EQ(z.device_of(p, "decoder/t2/lstm0/MatMul"), "/gpu:2");
  EXPECT_EQ(z.device_of(p, "decoder/t2/lstm1/MatMul"), "/gpu:3");
  EXPECT_EQ(z.device_of(p, "decoder/t2/attention/scores"), "/gpu:3");
  EXPECT_EQ(z.device_of(p, "decoder/t2/softmax/MatMul"), "/gpu:3");
}

struct Case {
  const char* model;
  const char* cluster;
};

class ZooOnK80 : public ::testing::TestWithParam<Case> {};

TEST_P(ZooOnK80, SingleGpuBeatsCpuAndNothingRunsOutOfMemory) {
  Zoo z(GetParam().model, GetParam().cluster);
  const Evaluation cpu = z.simulate(z.place("cpu"));
  const Evaluation gpu = z.simulate(z.place("single-gpu"));
  const Evaluation expert = z.simulate(z.place("expert"));
  EXPECT_LT(gpu.step_time_s, cpu.step_time_s / 2);  // a K80 die has 3.3x the Haswell's FP32 peak
  EXPECT_FALSE(gpu.oom);
  EXPECT_FALSE(expert.oom);
  EXPECT_GT(expert.step_time_s, 0);
  EXPECT_LT(expert.step_time_s, cpu.step_time_s);
}

INSTANTIATE_TEST_SUITE_P(Models, ZooOnK80,
                         ::testing::Values(Case{"rnnlm", "k80x2"}, Case{"rnnlm", "k80x4"}, Case{"nmt", "k80x2"},
                                           Case{"nmt", "k80x4"}, Case{"inception_v3", "k80x2"},
                                           Case{"inception_v3", "k80x4"}, Case{"resnet50", "k80x4"},
                                           Case{"transformer", "k80x4"}));

}  // namespace
}  // namespace devplace
