// File: pretrained_placer.cc
// The pretrained placer: one greedy decode and a few samples of a portable
// policy (see pretrained_placer.h).
#include "rl/pretrained_placer.h"

#include <limits>

#include "place/search.h"
#include "rl/portable_policy.h"
#include "rl/training_state.h"

namespace devplace::rl {

Result<std::string> resolve_policy_path(const std::string& value, const char* flag) {
  if (!value.empty() && value != "pretrained") return value;
  std::string path = shipped_policy_path();
  if (path.empty())
    return invalid_input(std::string(flag) +
                         ": no shipped policy found (models/pretrained.pt in the source tree, share/devplace/pretrained.pt "
                         "installed, or $DEVPLACE_PRETRAINED); name a `devplace pretrain` file");
  return path;
}

namespace {

class PretrainedPlacer : public Placer {
 public:
  explicit PretrainedPlacer(const TrainingRunOptions& options) : options_(options) {}
  std::string_view name() const override { return "pretrained"; }
  Status configure(const MethodOptions& options) override {
    DEVPLACE_ASSIGN_OR_RETURN(options_, parse_pretrained_options(options));
    return Status::ok_status();
  }

  Result<Placement> place(const PlaceContext& ctx) override {
    DEVPLACE_ASSIGN_OR_RETURN(const std::string path, resolve_policy_path(options_.policy_path, "--policy"));
    DEVPLACE_ASSIGN_OR_RETURN(LoadedPortable loaded, load_portable(path));
    use_one_thread();
    torch::NoGradGuard no_grad;
    PortablePolicy policy(loaded.net, portable_inputs(ctx.problem, ctx.grouping));
    // One evaluation for the greedy decode, the rest of the budget for samples.
    int64_t samples = options_.samples_per_update;
    if (samples < 0) samples = ctx.grouping.num_groups() <= kPretrainedLargeGroups ? kPretrainedSamples : kPretrainedSamplesLarge;
    if (ctx.budget.evaluations > 0) samples = std::min<int64_t>(samples, std::max<int64_t>(0, ctx.budget.evaluations - 1));
    torch::manual_seed(ctx.rng.next_u64() & 0x7fffffffffffffffULL);
    const torch::Tensor devices = policy.net()->decode(policy.inputs(), 1 + samples, /*greedy_rows=*/1);
    const int ng = ctx.grouping.num_groups();
    const auto acc = devices.accessor<int64_t, 2>();
    std::vector<std::vector<DeviceId>> rows(devices.size(0), std::vector<DeviceId>(ng));
    std::vector<Placement> placements;
    for (int64_t s = 0; s < devices.size(0); ++s) {
      for (int32_t g = 0; g < ng; ++g) rows[s][g] = static_cast<DeviceId>(acc[s][g]);
      placements.push_back(ctx.grouping.to_placement(rows[s]));
    }
    std::vector<Result<Evaluation>> results = ctx.evaluator.evaluate_all(placements, std::max(1, options_.threads));
    double best_cost = std::numeric_limits<double>::infinity();
    size_t best = 0;
    FinalPolicy final_policy;  // row 0 is the greedy decode, the others samples
    double fit_sum = 0;
    int64_t fits = 0;
    for (size_t s = 0; s < results.size(); ++s) {
      if (!results[s].ok()) return results[s].error();
      const Evaluation& e = results[s].value();
      const double cost = search_cost_s(ctx.problem, e);
      if (cost < best_cost) {
        best_cost = cost;
        best = s;
      }
      const bool fit = !e.oom && !e.failed;
      if (s == 0) {
        final_policy.greedy_step_s = e.step_time_s;
        final_policy.greedy_oom = !fit;
      } else if (fit) {
        fit_sum += e.step_time_s;
        ++fits;
      }
    }
    final_policy.samples = static_cast<int64_t>(results.size()) - 1;
    if (fits > 0) final_policy.mean_sample_step_s = fit_sum / static_cast<double>(fits);
    if (final_policy.samples > 0) final_policy.fit_fraction = static_cast<double>(fits) / static_cast<double>(final_policy.samples);
    final_policy_ = final_policy;
    return std::move(placements[best]);
  }
  std::optional<FinalPolicy> final_policy() const override { return final_policy_; }

 private:
  TrainingRunOptions options_;
  std::optional<FinalPolicy> final_policy_;
};

}  // namespace

std::unique_ptr<Placer> make_pretrained_placer(const TrainingRunOptions& options) { return std::make_unique<PretrainedPlacer>(options); }

}  // namespace devplace::rl
