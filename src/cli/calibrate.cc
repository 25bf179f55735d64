// File: calibrate.cc
// `devplace calibrate`: how far the simulator is from measured runs. It
// measures a few placements with an external measurer, prints simulated
// against measured step time per placement, the error and the rank
// correlation, fits a per-device time_scale from the single-device
// placements and shows the error the calibrated cluster gives.
#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/format.h"
#include "cli/graph_options.h"
#include "cli/measure_options.h"
#include "cli/method_comparison.h"
#include "cli/placement_source.h"
#include "cli/placer_options.h"
#include "cli/problem_source.h"
#include "cluster/cluster_json.h"
#include "common/file_io.h"
#include "common/json_reader.h"
#include "cost/cost_model.h"
#include "measure/calibration.h"
#include "sim/simulator.h"

namespace devplace::cli {

namespace {

const char* const kDefaultMethods = "round-robin,m-etf,heft,local-search";

const CommandSpec kSpec = {
    "devplace calibrate --graph SRC --cluster CL --measure COMMAND [--placements PL,PL,...]\n"
    "       [--out-cluster FILE] [--json] [--measure-* ...] [--budget SECONDS] [--seed N]",
    "Measures placements of SRC on CL with an external measurer (docs/measurer.md) and prints, per\n"
    "placement, the simulated and the measured step time and the simulator's error, then the mean\n"
    "error and Spearman's rank correlation over the placements (does the simulator order them as the\n"
    "hardware does?). The placements are every op on each device in turn, then --placements: methods\n"
    "(run with the simulator) or placement files, default " +
        std::string(kDefaultMethods) +
        ".\n"
        "From the single-device placements it fits each device's time_scale (the factor by which the\n"
        "measured step exceeds the simulated one) and prints the error of the calibrated cluster;\n"
        "--out-cluster writes that cluster, to use with --cluster anywhere.",
    with_measure_options(with_placer_options(with_graph_load_options({{"graph", "SRC", "graph file (an export of tools/export_torch.py) or zoo:NAME", true},
                                              {"cluster", "CL", "cluster JSON file or preset name", true},
                                              {"placements", "LIST", std::string("methods or placement files, comma-separated (default ") +
                                                                         kDefaultMethods + ")"},
                                              {"out-cluster", "FILE", "write the cluster with the fitted time_scale of each device", false, true},
                                              {"json", "", "print one JSON object"}})))
};

double error_pct(double simulated, double measured) { return 100.0 * (simulated - measured) / measured; }

struct Accuracy {
  double mean_abs_error_pct = std::numeric_limits<double>::quiet_NaN();
  double spearman = std::numeric_limits<double>::quiet_NaN();
  int points = 0;
};

Accuracy accuracy(const std::vector<double>& simulated, const std::vector<double>& measured) {
  std::vector<double> s, m;
  double sum = 0;
  for (size_t i = 0; i < simulated.size(); ++i) {
    if (!std::isfinite(measured[i])) continue;
    s.push_back(simulated[i]);
    m.push_back(measured[i]);
    sum += std::fabs(error_pct(simulated[i], measured[i]));
  }
  Accuracy a;
  a.points = static_cast<int>(s.size());
  if (a.points > 0) a.mean_abs_error_pct = sum / a.points;
  a.spearman = spearman_rank_correlation(s, m);
  return a;
}

std::string pct(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v);
  return buf;
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

Status run_calibrate(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  if (!args.get("measure")) return invalid_input("--measure: required (calibrate compares the simulator with a measurer)");
  if (args.flag("distributed")) return invalid_input("--distributed works with devplace place, not calibrate");
  const std::optional<std::string> out_cluster = args.get("out-cluster");
  if (out_cluster && out_cluster->empty()) return invalid_input("--out-cluster: expected a file name, got ''");
  DEVPLACE_ASSIGN_OR_RETURN(const PlacerRunOptions options, placer_run_options(args));
  const std::vector<std::string> specs = split_list_option(args.get_or("placements", kDefaultMethods));
  DEVPLACE_RETURN_IF_ERROR(check_method_options(placement_methods(specs), options));
  DEVPLACE_ASSIGN_OR_RETURN(const GraphLoadOptions load, graph_load_options(args));
  DEVPLACE_ASSIGN_OR_RETURN(LoadedProblem loaded, load_problem(*args.get("graph"), *args.get("cluster"), load));
  const Problem& problem = loaded.problem;
  const Cluster& cluster = problem.cluster();

  // The placements: each device alone, then the methods and files, without repeats.
  std::vector<CalibrationPoint> points;
  auto add = [&](std::string label, Placement p) {
    for (const CalibrationPoint& q : points) {
      if (q.placement == p) return;
    }
    points.push_back({std::move(label), std::move(p)});
  };
  for (DeviceId d = 0; d < problem.num_devices(); ++d) add("all on " + cluster.device(d).name, all_on_device(problem, d));
  for (const std::string& spec : specs) {
    Result<ResolvedPlacement> r = resolve_placement(spec, problem, options);
    if (!r.ok()) return r.error().with_prefix("--placements");
    add(r.value().label, std::move(r.value().placement));
  }

  DEVPLACE_ASSIGN_OR_RETURN(const std::optional<MeasurerOptions> measure, measurer_options(args, *args.get("graph")));
  DEVPLACE_ASSIGN_OR_RETURN(std::unique_ptr<Measurer> measurer, Measurer::start(problem, *measure));
  Simulator sim(problem);
  std::vector<bool> oom(points.size(), false), failed(points.size(), false);
  for (size_t i = 0; i < points.size(); ++i) {
    DEVPLACE_ASSIGN_OR_RETURN(const Evaluation s, sim.evaluate(points[i].placement));
    DEVPLACE_ASSIGN_OR_RETURN(const Evaluation m, measurer->evaluate(points[i].placement));
    points[i].simulated_s = s.step_time_s;
    oom[i] = m.oom;
    failed[i] = m.failed;
    points[i].measured_s = m.failed || m.oom ? std::numeric_limits<double>::quiet_NaN() : m.step_time_s;
  }

  // The calibrated cluster and what it simulates.
  const TimeScales scales = fit_time_scales(problem, points);
  json::Json doc = cluster_to_json(cluster);
  for (DeviceId d = 0; d < problem.num_devices(); ++d) doc["devices"][d]["time_scale"] = scales.scale[d];
  doc["name"] = cluster.name() + "-calibrated";
  DEVPLACE_ASSIGN_OR_RETURN(const Cluster calibrated, cluster_from_json(doc, "calibrated cluster"));
  const std::unique_ptr<CostModel> cost = make_default_cost_model();
  DEVPLACE_ASSIGN_OR_RETURN(const Problem calibrated_problem, Problem::create(problem.graph(), calibrated, *cost));
  Simulator calibrated_sim(calibrated_problem);
  std::vector<double> simulated, measured, recalibrated;
  for (const CalibrationPoint& p : points) {
    DEVPLACE_ASSIGN_OR_RETURN(const Evaluation c, calibrated_sim.evaluate(p.placement));
    simulated.push_back(p.simulated_s);
    measured.push_back(p.measured_s);
    recalibrated.push_back(c.step_time_s);
  }
  const Accuracy before = accuracy(simulated, measured), after = accuracy(recalibrated, measured);
  if (before.points < 2)
    return invalid_input("--measure: only " + std::to_string(before.points) + " of " + std::to_string(points.size()) +
                         " placements could be measured; nothing to compare (see the measurer's messages above)");
  if (out_cluster) DEVPLACE_RETURN_IF_ERROR(write_text_file(*out_cluster, doc.dump(2) + "\n"));
  std::cerr << "devplace: " << measurer->summary() << "\n";

  if (args.flag("json")) {
    json::Json rows = json::Json::array();
    for (size_t i = 0; i < points.size(); ++i) {
      const bool ok = std::isfinite(measured[i]);
      rows.push_back({{"placement", points[i].label},
                      {"simulated_s", simulated[i]},
                      {"measured_s", ok ? json::Json(measured[i]) : json::Json(nullptr)},
                      {"error_pct", ok ? json::Json(error_pct(simulated[i], measured[i])) : json::Json(nullptr)},
                      {"calibrated_s", recalibrated[i]},
                      {"calibrated_error_pct", ok ? json::Json(error_pct(recalibrated[i], measured[i])) : json::Json(nullptr)},
                      {"oom", static_cast<bool>(oom[i])},
                      {"failed", static_cast<bool>(failed[i])}});
    }
    json::Json scale = json::Json::object();
    for (DeviceId d = 0; d < problem.num_devices(); ++d)
      scale[cluster.device(d).name] = {{"time_scale", scales.scale[d]}, {"fitted", static_cast<bool>(scales.fitted[d])}};
    std::cout << json::Json{{"graph", problem.graph().name()},
                            {"cluster", cluster.name()},
                            {"placements", rows},
                            {"measured", before.points},
                            {"mean_abs_error_pct", number_or_null(before.mean_abs_error_pct)},
                            {"spearman", number_or_null(before.spearman)},
                            {"calibrated_mean_abs_error_pct", number_or_null(after.mean_abs_error_pct)},
                            {"calibrated_spearman", number_or_null(after.spearman)},
                            {"devices", scale},
                            {"out_cluster", out_cluster ? json::Json(*out_cluster) : json::Json(nullptr)},
                            {"measurer", measurer_json(*measurer)}}
                     .dump(2)
              << "\n";
    return Status::ok_status();
  }

  std::cout << "graph      " << problem.graph().name() << " (" << problem.num_ops() << " ops"
            << (problem.graph().has_backward() ? ", training step" : ", forward only") << ")\n"
            << "cluster    " << cluster.name() << " (" << cluster.num_devices() << " devices)\n"
            << "measurer   " << measurer->measurer_name() << " (warm-up " << measure->warmup << ", median of "
            << measure->repeats << ")\n\n";
  size_t width = 12;
  for (const CalibrationPoint& p : points) width = std::max(width, p.label.size() + 2);
  std::cout << pad_right("placement", width) << pad_left("simulated", 12) << pad_left("measured", 12) << pad_left("error", 9)
            << pad_left("calibrated", 12) << pad_left("error", 9) << "\n";
  for (size_t i = 0; i < points.size(); ++i) {
    const bool ok = std::isfinite(measured[i]);
    const std::string m = ok ? format_seconds(measured[i]) : failed[i] ? "failed" : "OOM";
    std::cout << pad_right(points[i].label, width) << pad_left(format_seconds(simulated[i]), 12) << pad_left(m, 12)
              << pad_left(ok ? pct(error_pct(simulated[i], measured[i])) : "-", 9)
              << pad_left(format_seconds(recalibrated[i]), 12)
              << pad_left(ok ? pct(error_pct(recalibrated[i], measured[i])) : "-", 9) << "\n";
  }
  std::cout << "\nsimulator   mean |error| " << fixed(before.mean_abs_error_pct, 1) << "% over " << before.points
            << " placements, Spearman rank correlation " << fixed(before.spearman, 2) << "\n"
            << "calibrated  mean |error| " << fixed(after.mean_abs_error_pct, 1) << "%, Spearman " << fixed(after.spearman, 2)
            << " (in-sample for the single-device placements the scales come from)\n"
            << "time_scale ";
  for (DeviceId d = 0; d < problem.num_devices(); ++d) {
    std::cout << (d ? ", " : " ") << cluster.device(d).name << " " << fixed(scales.scale[d], 3)
              << (scales.fitted[d] ? "" : " (not fitted: no single-device placement measured)");
  }
  std::cout << "\n";
  if (out_cluster) std::cout << "wrote      " << *out_cluster << " (use it with --cluster)\n";
  return Status::ok_status();
}

}  // namespace devplace::cli
