// TrainingLog (training_state.h): the CSV a learned method's run writes,
// one row per update, kept across a resume.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "rl/training_state.h"

namespace devplace::rl {
namespace {

// A run resumed from a version 4 checkpoint continues a log without the
// restarts column: the kept rows gain it, as 0, and the later rows dropped.
TEST(TrainingLog, AResumedLogWithoutTheRestartsColumnGainsIt) {
  const std::string file = (std::filesystem::temp_directory_path() / ("devplace_training_log_" + std::to_string(::getpid()) + ".csv")).string();
  {
    std::ofstream old(file);
    old << "iteration,wall_s,evaluations,mean_step_s,best_step_s,baseline_s,entropy,valid_fraction,learning_rate\n"
        << "1,0.1,16,1.5,1.4,1.6,0.8,1,0.001\n2,0.2,32,,1.4,1.6,0.7,0,0.001\n3,0.3,48,1.3,1.2,1.5,0.6,1,0.001\n";
  }
  Result<TrainingLog> log = TrainingLog::open(file, 2);
  ASSERT_TRUE(log.ok()) << log.error().message();
  log.value().row(3, 0.5, 48, 1.25, 1.2, 1.5, 0.6, 1, 0.001, 0);
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "iteration,wall_s,evaluations,mean_step_s,best_step_s,baseline_s,entropy,valid_fraction,learning_rate,restarts\n"
            "1,0.1,16,1.5,1.4,1.6,0.8,1,0.001,0\n2,0.2,32,,1.4,1.6,0.7,0,0.001,0\n3,0.5,48,1.25,1.2,1.5,0.6,1,0.001,0\n");
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace devplace::rl
