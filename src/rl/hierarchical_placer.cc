// File: hierarchical_placer.cc
// The hierarchical planner: grouper + placer over the co-location groups,
// trained by REINFORCE (see hierarchical_placer.h).
#include "rl/hierarchical_placer.h"

#include "rl/hierarchical_policy.h"
#include "rl/reinforce.h"

namespace devplace::rl {

namespace {

class HierarchicalPlacer : public Placer {
 public:
  explicit HierarchicalPlacer(const TrainingRunOptions& training) : training_(training) {}
  std::string_view name() const override { return "hierarchical"; }
  std::string label() const override { return pipeline_label(name(), training_); }
  Status configure(const MethodOptions& options) override {
    DEVPLACE_ASSIGN_OR_RETURN(training_, parse_training_options(options));
    return Status::ok_status();
  }

  Result<Placement> place(const PlaceContext& ctx) override {
    const Rng search_rng = ctx.rng;  // as local-search would draw: the warm start repeats it
    const Grouping units = Grouping::create(ctx.problem, GroupingOptions{GroupingKind::kColocation});
    // The initial parameters come from the seed.
    torch::manual_seed(ctx.rng.next_u64() & 0x7fffffffffffffffULL);
    HierarchicalOptions hierarchical;
    hierarchical.placer = policy_options(training_);
    // The paper's grouper has no prior.
    using Prior = HierarchicalOptions::Prior;
    if (training_.paper_recipe) hierarchical.prior = Prior::kNone;
    if (training_.grouper_prior == "clusters") hierarchical.prior = Prior::kClusters;
    if (training_.grouper_prior == "order") hierarchical.prior = Prior::kOrder;
    if (training_.grouper_prior == "none") hierarchical.prior = Prior::kNone;
    HierarchicalPolicy policy(ctx.problem, units, hierarchical);
    const PlaceContext unit_ctx{ctx.problem, units, ctx.evaluator, ctx.budget, ctx.rng};
    // The grouper starts uniform over N groups, so it imitates and learns
    // at a larger rate than the rl placer's seq2seq needs.
    ReinforceOptions options;
    options.warm_start_learning_rate = 0.01;
    options.learning_rate = 1e-3;
    // No entropy bonus, as rl: on the grouper it undid the cluster prior
    // (docs/rl.md, the hierarchical ablation).
    options.entropy_weight = 0;
    // Risk-seeking updates: only the better half of each batch teaches
    // (docs/rl.md, the sixth round: at 4,000 evaluations NMT-4 404.7 ms
    // against 479.7, its mean sample under the expert's; RNNLM-2 514.7
    // against 523.2; Inception-V3/k80x2 worse, 441.8 against 411.3, still
    // far under its best baseline).
    options.risk_seeking = 0.5;
    // Its warm start searches the context's (paper) grouping, as the
    // local-search column does, and imitates that placement unit by unit.
    options.warm_start_grouping = &ctx.grouping;
    options.warm_start_rng = &search_rng;
    options.run = training_;
    ResumedWork resumed;
    options.resumed = &resumed;
    FinalPolicy final_policy;
    options.final_policy = &final_policy;
    Result<Placement> placement = train_reinforce(policy, units, unit_ctx, options, "hierarchical");
    if (!training_.resume_path.empty()) resumed_ = resumed;
    final_policy_ = final_policy;
    return placement;
  }
  std::optional<ResumedWork> resumed() const override { return resumed_; }
  std::optional<FinalPolicy> final_policy() const override { return final_policy_; }

 private:
  TrainingRunOptions training_;
  std::optional<ResumedWork> resumed_;
  std::optional<FinalPolicy> final_policy_;
};

}  // namespace

std::unique_ptr<Placer> make_hierarchical_placer(const TrainingRunOptions& training) {
  return std::make_unique<HierarchicalPlacer>(training);
}

}  // namespace devplace::rl
