// File: rl_placer.cc
// REINFORCE over the seq2seq policy (see rl_placer.h).
#include "rl/rl_placer.h"

#include <algorithm>
#include <cmath>

#include "place/search.h"
#include "rl/features.h"
#include "rl/policy.h"

namespace devplace::rl {

std::unique_ptr<Placer> make_rl_placer() { return std::make_unique<RlPlacer>(); }

Result<Placement> RlPlacer::place(const PlaceContext& ctx) {
  const Grouping& grouping = ctx.grouping;
  const int ng = grouping.num_groups();
  const int nd = ctx.problem.num_devices();
  // One intra-op thread: the tensors are small, and more threads only spin.
  torch::set_num_threads(1);
  torch::manual_seed(ctx.rng.next_u64() & 0x7fffffffffffffffULL);

  const GroupFeatures f = group_features(ctx.problem, grouping);
  const torch::Tensor features = torch::from_blob(const_cast<float*>(f.values.data()), {ng, f.dim}, torch::kFloat).clone();
  torch::Tensor allowed = torch::zeros({ng, nd}, torch::kBool);
  for (int32_t g = 0; g < ng; ++g) {
    for (DeviceId d = 0; d < nd; ++d) allowed[g][d] = grouping.allows(g, d);
  }

  PolicyOptions policy_options;
  policy_options.hidden = options_.hidden;
  Seq2SeqPolicy policy(f.dim, nd, policy_options);
  torch::optim::Adam optimizer(policy->parameters(), torch::optim::AdamOptions(options_.learning_rate));

  // Iterations: from the evaluation budget, else the default; a time budget stops earlier.
  const int64_t k = options_.samples_per_update;
  const int64_t iterations = ctx.budget.evaluations > 0 ? std::max<int64_t>(1, (ctx.budget.evaluations - 1) / k)
                             : ctx.budget.seconds > 0   ? std::numeric_limits<int64_t>::max()
                                                        : options_.default_iterations;
  SearchClock clock(Budget{ctx.budget.seconds, 0}, ctx.evaluator, 0);

  std::vector<DeviceId> best;
  double best_cost = std::numeric_limits<double>::infinity();
  auto evaluate = [&](const torch::Tensor& devices_row) -> Result<double> {
    std::vector<DeviceId> devices(ng);
    const auto acc = devices_row.accessor<int64_t, 1>();
    for (int32_t g = 0; g < ng; ++g) devices[g] = static_cast<DeviceId>(acc[g]);
    DEVPLACE_ASSIGN_OR_RETURN(Evaluation e, ctx.evaluator.evaluate(grouping.to_placement(devices)));
    const double cost = search_cost_s(ctx.problem, e);
    if (cost < best_cost) {
      best_cost = cost;
      best = std::move(devices);
    }
    return e.oom ? options_.failed_step_time_s : e.step_time_s;
  };

  double baseline = 0;
  const int64_t noisy = iterations == std::numeric_limits<int64_t>::max() ? 20 : iterations / 2;
  for (int64_t it = 0; it < iterations; ++it) {
    if (ctx.budget.seconds > 0 && clock.exhausted()) break;
    const double noise = it < noisy ? options_.initial_noise * (1.0 - static_cast<double>(it) / static_cast<double>(noisy)) : 0.0;
    PolicyOutput out = policy->forward(features, allowed, k, /*greedy=*/false, noise);
    std::vector<float> rewards(k);
    for (int64_t s = 0; s < k; ++s) {
      DEVPLACE_ASSIGN_OR_RETURN(const double t, evaluate(out.devices[s]));
      rewards[s] = static_cast<float>(std::sqrt(t));
    }
    double mean = 0;
    for (float r : rewards) mean += r;
    mean /= static_cast<double>(k);
    baseline = it == 0 ? mean : options_.baseline_decay * baseline + (1 - options_.baseline_decay) * mean;
    const torch::Tensor advantage = torch::from_blob(rewards.data(), {k}, torch::kFloat).clone() - static_cast<float>(baseline);
    const torch::Tensor loss = (advantage * out.log_prob).mean();
    optimizer.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(policy->parameters(), 1.0);
    optimizer.step();
  }

  {
    torch::NoGradGuard no_grad;
    PolicyOutput greedy = policy->forward(features, allowed, 1, /*greedy=*/true, 0.0);
    DEVPLACE_ASSIGN_OR_RETURN(const double t, evaluate(greedy.devices[0]));
    (void)t;
  }
  return grouping.to_placement(best);
}

}  // namespace devplace::rl
