// File: seed_median.h
// `devplace compare --seeds A,B,...`: the same comparison run once per
// seed, summarised per method by its median over the seeds. A learned
// method's answer depends on its seed (docs/rl.md: RNNLM-2 at 4,000
// evaluations, 504.9 ms with seed 1 and 465.3 ms with seeds 2 and 3), so
// a claim about a method is a claim about its median.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/method_comparison.h"
#include "common/status.h"

namespace devplace::cli {

// The seeds of --seeds: positive integers, comma-separated, each once, at
// most kMaxSeeds of them. An error names the flag and the bad entry.
inline constexpr size_t kMaxSeeds = 16;
Result<std::vector<uint64_t>> parse_seeds(const std::string& text);

// Per method, in the order of per_seed's results (every comparison ran the
// same methods, in the same order): the median over the seeds of the step
// time, the search time and each best_after milestone every seed reached.
// A seed whose placement runs out of memory counts as an infinite step
// time (the median is OOM when half the seeds or more are; its step time
// is then the median of the times simulated anyway), and a seed on
// which the method failed is left out (the method fails, with the first
// seed's error, when it failed on every seed). The evaluations are the
// most any seed made; interrupted or not_run when any seed was; a median
// has no placement (nor peak memory). The lower
// bound and the best paper baseline are the first seed's (they do not
// depend on the seed), and the ratios are recomputed from the medians.
Comparison median_over_seeds(const std::vector<Comparison>& per_seed);

// The median of the values (the mean of the middle two for an even count);
// NaN for none.
double median(std::vector<double> values);

}  // namespace devplace::cli
