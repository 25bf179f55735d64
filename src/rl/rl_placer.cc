// File: rl_placer.cc
// The rl placer: the seq2seq policy over the context's grouping, trained by
// REINFORCE (see rl_placer.h).
#include "rl/rl_placer.h"

#include "rl/features.h"
#include "rl/policy.h"
#include "rl/portable_policy.h"
#include "rl/pretrained_placer.h"
#include "rl/reinforce.h"

namespace devplace::rl {

namespace {

class RlPlacer : public Placer {
 public:
  explicit RlPlacer(const TrainingRunOptions& training) : training_(training) {}
  std::string_view name() const override { return "rl"; }
  std::string label() const override { return pipeline_label(name(), training_); }
  Status configure(const MethodOptions& options) override {
    DEVPLACE_ASSIGN_OR_RETURN(training_, parse_training_options(options));
    return Status::ok_status();
  }

  Result<Placement> place(const PlaceContext& ctx) override {
    const Rng search_rng = ctx.rng;  // as local-search would draw: the warm start repeats it
    const Grouping& grouping = ctx.grouping;
    // The initial parameters come from the seed, or from a pretrained policy (--init).
    torch::manual_seed(ctx.rng.next_u64() & 0x7fffffffffffffffULL);
    std::unique_ptr<PlacementPolicy> policy;
    if (!training_.init_path.empty()) {
      DEVPLACE_ASSIGN_OR_RETURN(const std::string path, resolve_policy_path(training_.init_path, "--init"));
      DEVPLACE_ASSIGN_OR_RETURN(LoadedPortable loaded, load_portable(path));
      loaded.net->set_logit_temperature(training_.init_temperature);
      policy = std::make_unique<PortablePolicy>(loaded.net, portable_inputs(ctx.problem, grouping));
    } else {
      policy = fresh_policy(ctx, grouping);
    }
    ReinforceOptions options;
    // No entropy bonus: with the neighbour affinity a fresh policy already
    // explores placements that follow the data, and a bonus kept the
    // decisions that do not matter random, whose noise hid the signal of
    // those that do (NMT on k80x4 stuck at a mean sample of 0.65 s with it,
    // 0.44 s without; docs/rl.md, the ablation).
    options.entropy_weight = 0;
    options.warm_start_rng = &search_rng;
    options.run = training_;
    ResumedWork resumed;
    options.resumed = &resumed;
    FinalPolicy final_policy;
    options.final_policy = &final_policy;
    Result<Placement> placement = train_reinforce(*policy, grouping, ctx, options, "rl");
    if (!training_.resume_path.empty()) resumed_ = resumed;
    final_policy_ = final_policy;
    return placement;
  }
  std::optional<ResumedWork> resumed() const override { return resumed_; }
  std::optional<FinalPolicy> final_policy() const override { return final_policy_; }

 private:
  // The paper's seq2seq, randomly initialised from torch's generator.
  std::unique_ptr<PlacementPolicy> fresh_policy(const PlaceContext& ctx, const Grouping& grouping) const {
    const int ng = grouping.num_groups();
    const int nd = ctx.problem.num_devices();
    const GroupFeatures f = group_features(ctx.problem, grouping);
    const torch::Tensor features = torch::from_blob(const_cast<float*>(f.values.data()), {ng, f.dim}, torch::kFloat).clone();
    torch::Tensor allowed = torch::zeros({ng, nd}, torch::kBool);
    auto acc = allowed.accessor<bool, 2>();
    for (int32_t g = 0; g < ng; ++g) {
      for (DeviceId d = 0; d < nd; ++d) acc[g][d] = grouping.allows(g, d);
    }
    const PolicyOptions policy_opts = policy_options(training_);
    torch::Tensor prior;
    if (policy_opts.speed_prior > 0) {
      const std::vector<float> bonus = speed_prior_bonus(grouping, nd, policy_opts.speed_prior);
      prior = torch::from_blob(const_cast<float*>(bonus.data()), {ng, nd}, torch::kFloat).clone();
    }
    torch::Tensor loads;  // [G, D, 2]: work and memory shares
    if (policy_opts.load_input) {
      const PortableFeatures shares = portable_features(ctx.problem, grouping);
      const torch::Tensor work = torch::from_blob(const_cast<float*>(shares.work.data()), {ng, nd}, torch::kFloat);
      const torch::Tensor memory = torch::from_blob(const_cast<float*>(shares.memory.data()), {ng, nd}, torch::kFloat);
      loads = torch::stack({work, memory}, 2).contiguous();
    }
    return std::make_unique<Seq2SeqPolicy>(features, allowed, nd, policy_opts,
                                           policy_opts.neighbour_devices ? placed_neighbours(ctx.problem, grouping) : PlacedNeighbours{}, prior,
                                           loads);
  }

  TrainingRunOptions training_;
  std::optional<ResumedWork> resumed_;
  std::optional<FinalPolicy> final_policy_;
};

}  // namespace

std::unique_ptr<Placer> make_rl_placer(const TrainingRunOptions& training) { return std::make_unique<RlPlacer>(training); }

}  // namespace devplace::rl
