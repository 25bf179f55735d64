// File: seed_median.cc
// Medians over the seeds of a comparison (see seed_median.h).
#include "cli/seed_median.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <system_error>

namespace devplace::cli {

Result<std::vector<uint64_t>> parse_seeds(const std::string& text) {
  std::vector<uint64_t> seeds;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    uint64_t seed = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), seed);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || seed == 0 ||
        seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return invalid_input("--seeds: expected positive integers separated by commas, got '" + text + "' ('" + item + "')");
    if (std::find(seeds.begin(), seeds.end(), seed) != seeds.end())
      return invalid_input("--seeds: seed " + item + " is given twice in '" + text + "'");
    seeds.push_back(seed);
    if (seeds.size() > kMaxSeeds) return invalid_input("--seeds: at most " + std::to_string(kMaxSeeds) + " seeds, got '" + text + "'");
    start = comma + 1;
  }
  return seeds;
}

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  if (n % 2 == 1) return values[n / 2];
  const double a = values[n / 2 - 1], b = values[n / 2];
  return std::isinf(b) ? b : (a + b) / 2;
}

Comparison median_over_seeds(const std::vector<Comparison>& per_seed) {
  Comparison out;
  if (per_seed.empty()) return out;
  const Comparison& first = per_seed.front();
  out.lower_bound = first.lower_bound;
  out.best_paper_baseline_s = first.best_paper_baseline_s;
  for (size_t m = 0; m < first.results.size(); ++m) {
    MethodResult r;
    r.method = first.results[m].method;
    r.role = first.results[m].role;
    std::vector<double> steps, raw_steps, searches;
    bool failed = false;
    std::map<int64_t, std::vector<double>> milestones;
    std::optional<PlacerRun> run_seen;
    int64_t evaluations = 0;
    size_t ran = 0;
    for (const Comparison& c : per_seed) {
      const MethodResult& s = c.results.at(m);
      r.interrupted = r.interrupted || s.interrupted;
      r.not_run = r.not_run || s.not_run;
      r.not_applicable = r.not_applicable || s.not_applicable;
      if (!s.run) {
        if (r.error.empty()) r.error = s.error;
        continue;
      }
      ++ran;
      if (!run_seen) run_seen = s.run;
      const Evaluation& e = s.run->evaluation;
      steps.push_back(e.oom ? std::numeric_limits<double>::infinity() : e.step_time_s);
      raw_steps.push_back(e.step_time_s);
      failed = failed || e.failed;
      searches.push_back(s.run->search_time_s);
      evaluations = std::max(evaluations, s.run->evaluations);
      for (const auto& [n, t] : s.best_after) milestones[n].push_back(t);
    }
    if (ran > 0) {
      r.error.clear();
      r.not_run = false;
      // What ran (the method's shown name); a median has no placement.
      PlacerRun run;
      run.method = run_seen->method;
      run.num_groups = run_seen->num_groups;
      const double step = median(steps);
      run.evaluation.oom = std::isinf(step);
      run.evaluation.step_time_s = std::isinf(step) ? median(raw_steps) : step;
      run.evaluation.failed = failed;
      run.search_time_s = median(searches);
      run.evaluations = evaluations;
      r.run = std::move(run);
      for (const auto& [n, times] : milestones) {
        if (times.size() == ran) r.best_after.emplace_back(n, median(times));
      }
      r.ratio_to_lower_bound = std::isinf(step) ? std::numeric_limits<double>::quiet_NaN() : ratio(step, out.lower_bound.value_s());
      r.speedup_over_paper_baselines =
          std::isinf(step) ? std::numeric_limits<double>::quiet_NaN() : ratio(out.best_paper_baseline_s, step);
    }
    out.results.push_back(std::move(r));
  }
  return out;
}

}  // namespace devplace::cli
