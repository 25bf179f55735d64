// File: training_log.cc
// Reads the CSV training log of the learned placers (rl/training_state.cc
// writes it): a header naming the columns, then one row per update.
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common/file_io.h"
#include "report/report.h"

namespace devplace::report {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// A number, "inf" or "nan" (what the log writes for no valid placement yet).
bool parse_number(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

}  // namespace

Result<TrainingCurve> read_training_log(const std::string& path) {
  DEVPLACE_ASSIGN_OR_RETURN(const std::string text, read_text_file(path));
  std::stringstream in(text);
  std::string line;
  if (!std::getline(in, line)) return invalid_input(path + ": empty file, not a training log");
  const std::vector<std::string> header = split(line);
  int it = -1, best = -1, mean = -1;
  for (int i = 0; i < static_cast<int>(header.size()); ++i) {
    if (header[i] == "iteration") it = i;
    if (header[i] == "best_step_s") best = i;
    if (header[i] == "mean_step_s") mean = i;
  }
  if (it < 0 || best < 0 || mean < 0)
    return invalid_input(path + ":1: not a training log (expected the columns iteration, mean_step_s and best_step_s)");
  TrainingCurve curve;
  curve.label = path;
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line);
    if (cells.size() != header.size())
      return invalid_input(path + ":" + std::to_string(number) + ": expected " + std::to_string(header.size()) + " columns, got " +
                           std::to_string(cells.size()));
    double v[3];
    const int cols[3] = {it, best, mean};
    for (int k = 0; k < 3; ++k) {
      if (!parse_number(cells[cols[k]], v[k]))
        return invalid_input(path + ":" + std::to_string(number) + ": " + header[cols[k]] + ": expected a number, got '" +
                             cells[cols[k]] + "'");
    }
    if (!std::isfinite(v[0])) return invalid_input(path + ":" + std::to_string(number) + ": iteration: expected a number");
    curve.iteration.push_back(v[0]);
    curve.best_s.push_back(std::isfinite(v[1]) ? v[1] : std::nan(""));
    curve.mean_s.push_back(std::isfinite(v[2]) ? v[2] : std::nan(""));
  }
  if (curve.iteration.empty()) return invalid_input(path + ": no rows: the training log is empty");
  return curve;
}

}  // namespace devplace::report
