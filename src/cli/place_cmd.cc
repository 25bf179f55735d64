// File: place_cmd.cc
// `devplace place`: runs one placement method and reports its placement's
// step time against the step-time lower bound and the single-GPU baseline.
// Ctrl-C while a learned method trains stops it early: its best placement so
// far is reported and main.cc exits with code 130.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/format.h"
#include "cli/graph_options.h"
#include "cli/measure_options.h"
#include "cli/method_comparison.h"
#include "cli/placer_options.h"
#include "cli/problem_source.h"
#include "cli/report_options.h"
#include "common/interrupt.h"
#include "common/progress.h"
#include "common/json_reader.h"
#include "io/placement_file.h"
#include "io/tf_graphdef_writer.h"
#include "place/progress_evaluator.h"
#include "rl/rl_library.h"
#include "sim/simulator.h"

namespace devplace::cli {

namespace {

const CommandSpec kSpec = {
    "devplace place --graph SRC --cluster CL --method NAME [--budget SECONDS] [--evaluations N] [--seed N]\n"
    "       [--grouping paper|colocation] [--training] [--tf-costs FILE] [--out FILE] [--json]\n"
    "       [--iterations N] [--training-log FILE] [--checkpoint FILE] [--checkpoint-every N] [--resume FILE]\n"
    "       [--threads N] [--measure COMMAND [--measure-log FILE] ...] [--distributed [--sync]]\n"
    "       [--report FILE]",
    "Runs one placement method (devplace methods) on SRC and CL, with the simulator as the evaluator a\n"
    "search method may call within its budget, and prints its placement's step time, whether it runs\n"
    "out of memory, the search time, the ratio to the step-time lower bound (no placement beats it) and\n"
    "the speed-up over single-gpu. --out writes the placement (.csv for CSV, else JSON), or, for a\n"
    "TensorFlow GraphDef SRC and an --out ending in .pb or .pbtxt, SRC with each node's device set.\n"
    "A learned method (rl) trains for --iterations policy updates; Ctrl-C stops it early, reports its\n"
    "best placement so far and exits with code 130 (a second Ctrl-C kills it).\n"
    "--measure runs each placement with an external measurer (docs/measurer.md) instead of simulating it;\n"
    "the lower bound stays the simulator's. --distributed (under mpirun -np N) trains a learned method\n"
    "with rank 0 as the parameter server and N - 1 controllers; rank 0 alone prints.",
    with_report_option(with_measure_options(with_placer_options(with_graph_load_options({{"graph", "SRC", "graph file or zoo:NAME[:k=v,...]", true},
                         {"cluster", "CL", "cluster JSON file or preset name", true},
                         {"method", "NAME", "placement method (devplace methods)", true},
                         {"out", "FILE", "write the placement (.csv for CSV, .pb/.pbtxt: the GraphDef SRC placed, else JSON)", false, true},
                         {"json", "", "print one JSON object"}}))))
};

// What `place` reports besides the run itself.
struct PlaceReport {
  const Problem& problem;
  const PlacerRun& run;
  const PlacerRun& single_gpu;
  const LowerBound& bound;
  const PlacerRunOptions& options;
  const Measurer* measurer;  // null: the simulator scored the placements
  double remeasured_s;       // median of fresh measurements of the placement; NaN: none
  int remeasured_count;
};

// The median of `count` fresh measurements of the chosen placement (NaN if
// none succeeded): a search keeps the best of many noisy measurements,
// which is biased low.
Result<double> remeasure(Measurer& measurer, const Placement& placement, int count) {
  std::vector<double> times;
  for (int i = 0; i < count; ++i) {
    DEVPLACE_ASSIGN_OR_RETURN(const Evaluation e, measurer.evaluate_fresh(placement));
    if (!e.failed && !e.oom) times.push_back(e.step_time_s);
  }
  if (times.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

// A measurer that reports no memory (every peak 0): the peaks are unknown, not 0.
bool peaks_known(const PlaceReport& r) {
  if (!r.measurer) return true;
  for (int64_t b : r.run.evaluation.peak_memory_bytes) {
    if (b != 0) return true;
  }
  return false;
}

std::vector<int> ops_per_device(const Problem& problem, const Placement& placement) {
  std::vector<int> n(problem.num_devices(), 0);
  for (DeviceId d : placement.device_of_op) ++n[d];
  return n;
}

// A resumed learned run's training before it and in all, as its training
// log counts them; null for a run that did not resume.
json::Json resumed_json(const std::optional<ResumedWork>& w) {
  if (!w) return nullptr;
  return {{"checkpoint", w->checkpoint},
          {"before", {{"updates", w->updates_before}, {"evaluations", w->evaluations_before}, {"training_time_s", w->seconds_before}}},
          {"total", {{"updates", w->updates_total}, {"evaluations", w->evaluations_total}, {"training_time_s", w->seconds_total}}}};
}

json::Json report_json(const PlaceReport& r) {
  const Cluster& c = r.problem.cluster();
  const std::vector<int> ops = ops_per_device(r.problem, r.run.placement);
  json::Json peak = json::Json::object(), per_device = json::Json::object();
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    peak[c.device(d).name] = r.run.evaluation.peak_memory_bytes[d];
    per_device[c.device(d).name] = ops[d];
  }
  const double step = r.run.evaluation.step_time_s;
  const int64_t max_evaluations = r.options.budget.evaluations;
  return {{"method", r.run.method},
          {"graph", r.problem.graph().name()},
          {"cluster", c.name()},
          {"ops", r.problem.num_ops()},
          {"groups", r.run.num_groups},
          {"grouping", std::string(grouping_kind_name(r.options.grouping.kind))},
          {"budget", {{"seconds", r.options.budget.seconds}, {"evaluations", max_evaluations > 0 ? json::Json(max_evaluations) : json::Json(nullptr)}}},
          {"seed", r.options.seed},
          {"step_time_s", step},
          {"oom", r.run.evaluation.oom},
          {"search_time_s", r.run.search_time_s},
          {"evaluations", r.run.evaluations},
          {"resumed", resumed_json(r.run.resumed)},
          {"final_policy", final_policy_json(r.run.final_policy)},
          {"lower_bound_s", r.bound.value_s()},
          {"lower_bound", lower_bound_json(r.bound)},
          {"ratio_to_lower_bound", number_or_null(ratio(step, r.bound.value_s()))},
          {"single_gpu_step_time_s", r.single_gpu.evaluation.step_time_s},
          {"single_gpu_oom", r.single_gpu.evaluation.oom},
          {"speedup_over_single_gpu", number_or_null(ratio(r.single_gpu.evaluation.step_time_s, step))},
          {"failed", r.run.evaluation.failed},
          {"evaluator", r.measurer ? "measurer" : "simulator"},
          {"measurer", r.measurer ? measurer_json(*r.measurer) : json::Json(nullptr)},
          {"remeasured_step_time_s", number_or_null(r.remeasured_s)},
          {"peak_memory_bytes", peaks_known(r) ? peak : json::Json(nullptr)},
          {"ops_per_device", per_device}};
}

void print_report(const PlaceReport& r) {
  const Cluster& c = r.problem.cluster();
  const Evaluation& e = r.run.evaluation;
  std::cout << "graph        " << r.problem.graph().name() << " (" << r.problem.num_ops() << " ops, " << r.run.num_groups << " "
            << grouping_kind_name(r.options.grouping.kind) << " groups"
            << (r.problem.graph().has_backward() ? ", training step" : ", forward only") << ")\n"
            << "cluster      " << c.name() << " (" << c.num_devices() << " devices)\n"
            << "method       " << r.run.method << "\n"
            << "evaluator    " << (r.measurer ? "measured by " + r.measurer->measurer_name() : std::string("simulator")) << "\n"
            << "step time    " << format_seconds(e.step_time_s)
            << (e.failed ? " (the failure penalty: the measurer could not measure it)" : "")
            << (r.measurer && !e.failed ? r.measurer->caches() ? " (as measured during the search)"
                                                  : " (one more measurement of the chosen placement, --measure-no-cache)"
                           : "")
            << "\n";
  if (r.measurer && r.remeasured_count > 0)
    std::cout << "measured     " << (std::isfinite(r.remeasured_s) ? format_seconds(r.remeasured_s) : std::string("failed"))
              << " again (median of " << r.remeasured_count << " fresh measurements, --measure-recheck)\n";
  std::cout
            << "OOM          " << (e.oom ? "yes: a device's peak memory exceeds its capacity" : "no") << "\n"
            << "search time  " << format_seconds(r.run.search_time_s) << " (" << r.run.evaluations << " evaluations"
            << (r.run.resumed ? ", this run" : "") << ")\n";
  if (const std::optional<ResumedWork>& w = r.run.resumed) {
    std::cout << "resumed      from " << w->checkpoint << " after " << w->updates_before << " updates (" << w->evaluations_before
              << " sampled placements, " << format_seconds(w->seconds_before) << "); in all " << w->updates_total << " updates ("
              << w->evaluations_total << " sampled placements, " << format_seconds(w->seconds_total) << "), as the training log counts\n";
  }
  if (r.run.final_policy) std::cout << "policy       " << final_policy_line(*r.run.final_policy) << "\n";
  std::cout
            << "lower bound  " << format_seconds(r.bound.value_s()) << " (" << binding_part(r.bound)
            << " binds; critical path " << format_seconds(r.bound.critical_path_s) << ", load "
            << format_seconds(r.bound.load_s) << ", group " << format_seconds(r.bound.group_s) << ")\n"
            << "vs bound     " << format_ratio(ratio(e.step_time_s, r.bound.value_s())) << " the lower bound\n"
            << "vs 1 GPU     " << format_ratio(ratio(r.single_gpu.evaluation.step_time_s, e.step_time_s))
            << " speed-up over single-gpu (" << format_seconds(r.single_gpu.evaluation.step_time_s)
            << (r.single_gpu.evaluation.oom ? ", OOM" : "") << ")\n\n";
  std::cout << pad_right("device", 10) << pad_left("ops", 7) << pad_left("peak memory", 14) << pad_left("capacity", 12) << "\n";
  const std::vector<int> ops = ops_per_device(r.problem, r.run.placement);
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    const bool oom = e.peak_memory_bytes[d] > c.device(d).memory_bytes;
    std::cout << pad_right(c.device(d).name, 10) << pad_left(std::to_string(ops[d]), 7)
              << pad_left(peaks_known(r) ? format_bytes(e.peak_memory_bytes[d]) + (oom ? "!" : "") : "n/a", 14)
              << pad_left(format_bytes(c.device(d).memory_bytes), 12) << "\n";
  }
}

}  // namespace

// Whether `method` is a learned placer (it draws its own progress bars).
bool is_learned(const std::string& method) {
  for (const PlacerInfo& info : placer_registry()) {
    if (info.name == method) return info.role == PlacerRole::kLearned;
  }
  return false;
}

Status run_place(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  const std::string method = *args.get("method");
  if (Result<std::unique_ptr<Placer>> placer = make_placer(method); !placer.ok()) return placer.error().with_prefix("--method");
  DEVPLACE_ASSIGN_OR_RETURN(const PlacerRunOptions options, placer_run_options(args));
  DEVPLACE_RETURN_IF_ERROR(check_method_options({method}, options));
  DEVPLACE_ASSIGN_OR_RETURN(const GraphLoadOptions load, graph_load_options(args));
  // A GraphDef written back needs a GraphDef to start from: refused before any work.
  const bool out_graphdef = args.get("out") && is_tf_graphdef_output(*args.get("out"));
  if (out_graphdef) DEVPLACE_RETURN_IF_ERROR(check_tf_graphdef_output("--out", *args.get("out"), *args.get("graph")));
  DEVPLACE_ASSIGN_OR_RETURN(LoadedProblem loaded, load_problem(*args.get("graph"), *args.get("cluster"), load));
  const Problem& problem = loaded.problem;

  DEVPLACE_ASSIGN_OR_RETURN(const std::optional<MeasurerOptions> measure, measurer_options(args, *args.get("graph")));
  // A distributed run starts MPI first: every rank has its own measurer,
  // and ranks above 0 write their measurer logs to LOG.rankN.
  DEVPLACE_ASSIGN_OR_RETURN(const std::optional<std::string> report_file, report_path(args));
  if (options.method_options.count("distributed") > 0) {
    const Status mpi = start_mpi();
    if (!mpi.ok()) return mpi.error().with_prefix("--distributed");
  }
  std::unique_ptr<Measurer> measurer;
  if (measure) {
    MeasurerOptions m = *measure;
    if (mpi_rank() > 0 && !m.log_path.empty()) m.log_path += ".rank" + std::to_string(mpi_rank());
    DEVPLACE_ASSIGN_OR_RETURN(measurer, Measurer::start(problem, m));
  }
  Simulator sim(problem);
  Evaluator& evaluator = measurer ? static_cast<Evaluator&>(*measurer) : sim;
  // While the method runs Ctrl-C sets a flag (a learned method then stops
  // and returns its best placement so far) instead of killing devplace.
  // On a terminal a bar follows its evaluations (a learned method draws
  // its own, per stage).
  auto run_interruptible = [&] {
    clear_interrupt();
    InterruptScope scope;
    ProgressBar bar(method, stderr_is_terminal() && !is_learned(method));
    ProgressEvaluator shown(evaluator, bar, options.budget);
    Result<PlacerRun> run = run_placer(method, problem, shown, options);
    bar.finish();
    return run;
  };
  DEVPLACE_ASSIGN_OR_RETURN(const PlacerRun run, run_interruptible());
  const bool interrupted = interrupt_requested();
  // In a distributed run (--distributed under mpirun) rank 0 alone reports.
  if (mpi_rank() != 0) return Status::ok_status();
  Simulator baseline_sim(problem);
  DEVPLACE_ASSIGN_OR_RETURN(const PlacerRun single_gpu,
                            run_placer("single-gpu", problem, measurer ? evaluator : baseline_sim, options));
  const LowerBound bound = compute_lower_bound(problem);
  double remeasured_s = std::numeric_limits<double>::quiet_NaN();
  // After Ctrl-C nothing more is measured.
  const int recheck = measurer && !interrupted ? measure->recheck : 0;
  if (recheck > 0) {
    DEVPLACE_ASSIGN_OR_RETURN(remeasured_s, remeasure(*measurer, run.placement, recheck));
  }
  const PlaceReport report{problem, run, single_gpu, bound, options, measurer.get(), remeasured_s, recheck};
  if (measurer) std::cerr << "devplace: " << measurer->summary() << "\n";

  const std::optional<std::string> out = args.get("out");
  if (args.flag("json")) {
    json::Json j = report_json(report);
    if (out) j["placement_file"] = *out;
    j["interrupted"] = interrupted;
    std::cout << j.dump(2) << "\n";
  } else {
    print_report(report);
  }
  if (out) {
    if (out_graphdef) {
      DEVPLACE_RETURN_IF_ERROR(write_tf_graphdef_placement(*out, *args.get("graph"), problem, run.placement));
    } else {
      DEVPLACE_RETURN_IF_ERROR(write_placement_file(*out, problem, run.placement));
    }
    if (!args.flag("json")) std::cout << "\nplacement written to " << *out << "\n";
  }
  if (report_file) {
    report::Report rep;
    rep.title = method + ": " + problem_title(problem);
    report::Entry entry{method, run.placement, "", run.search_time_s, run.evaluations};
    set_final_policy(entry, run.final_policy);
    rep.sections.push_back({problem_title(problem), &problem, {entry}});
    DEVPLACE_ASSIGN_OR_RETURN(rep.curves, training_curves(method_option(options, "training-log")));
    DEVPLACE_RETURN_IF_ERROR(write_report(*report_file, rep));
  }
  if (interrupt_requested()) {
    // main.cc maps the flag to exit code 130.
    std::cout.flush();
    std::fprintf(stderr, "interrupted: the placement above is the best %s found before Ctrl-C\n", method.c_str());
  }
  return Status::ok_status();
}

}  // namespace devplace::cli
