// File: run_placer.cc
// Runs one placer end to end (see run_placer.h).
#include "place/run_placer.h"

#include <chrono>

namespace devplace {

Result<std::unique_ptr<Placer>> make_configured_placer(std::string_view method, const MethodOptions& given) {
  DEVPLACE_ASSIGN_OR_RETURN(std::unique_ptr<Placer> placer, make_placer(method));
  MethodOptions own;
  for (const PlacerInfo& info : placer_registry()) {
    if (info.name != method) continue;
    for (const MethodOptionSpec& spec : info.options) {
      if (auto it = given.find(spec.name); it != given.end()) own.insert(*it);
    }
  }
  DEVPLACE_RETURN_IF_ERROR(placer->configure(own));
  return placer;
}

Result<PlacerRun> run_placer(std::string_view method, const Problem& problem, Evaluator& evaluator,
                             const PlacerRunOptions& options) {
  DEVPLACE_ASSIGN_OR_RETURN(std::unique_ptr<Placer> placer, make_configured_placer(method, options.method_options));
  const Grouping grouping = Grouping::create(problem, options.grouping);
  Rng rng(options.seed);
  const int64_t evaluations_before = evaluator.num_evaluations();
  const auto start = std::chrono::steady_clock::now();
  const PlaceContext context{problem, grouping, evaluator, options.budget, rng};
  DEVPLACE_ASSIGN_OR_RETURN(Placement placement, placer->place(context));
  const double search_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int64_t evaluations = evaluator.num_evaluations() - evaluations_before;
  DEVPLACE_RETURN_IF_ERROR(check_placement(problem, placement));
  DEVPLACE_ASSIGN_OR_RETURN(Evaluation evaluation, evaluator.evaluate(placement));
  PlacerRun run;
  run.method = placer->label();
  run.placement = std::move(placement);
  run.evaluation = std::move(evaluation);
  run.search_time_s = search_time_s;
  run.evaluations = evaluations;
  run.num_groups = grouping.num_groups();
  run.resumed = placer->resumed();
  run.final_policy = placer->final_policy();
  return run;
}

}  // namespace devplace
