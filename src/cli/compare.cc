// File: compare.cc
// `devplace compare`: several placement methods side by side on one graph and
// cluster, or, with --suite paper, on the six rows of Table 1 of Mirhoseini
// et al. 2017 (RNNLM, NMT and Inception-V3 on 2 and 4 K80s), with the paper's
// columns: CPU only, single GPU, Scotch, MinCut, expert, then the others, and
// last the learned methods (rl, hierarchical), which train for minutes.
#include <algorithm>
#include <chrono>
#include <limits>
#include <iostream>
#include <iterator>
#include <string>
#include <utility>

#include <optional>

#include "cli/args.h"
#include "cli/child_processes.h"
#include "cli/commands.h"
#include "common/format.h"
#include "cli/graph_options.h"
#include "cli/measure_options.h"
#include "cli/method_comparison.h"
#include "cli/paper_suite.h"
#include "cli/placer_options.h"
#include "cli/problem_source.h"
#include "cli/report_options.h"
#include "cli/seed_median.h"
#include "cli/suite_reuse.h"
#include "cluster/cluster_json.h"
#include "common/interrupt.h"
#include "common/json_reader.h"

namespace devplace::cli {

namespace {

// The placer options with --evaluations' help saying compare's default.
std::vector<OptionSpec> with_compare_budget(std::vector<OptionSpec> options) {
  for (OptionSpec& o : options) {
    if (o.name == "evaluations")
      o.help = "evaluations per searching method (random-search, local-search, rl, hierarchical; default " +
               std::to_string(kDefaultCompareEvaluations) + " unless --budget is given)";
  }
  return options;
}

const CommandSpec kSpec = {
    "devplace compare --graph SRC --cluster CL [--methods A,B,...] [--budget SECONDS] [--evaluations N]\n"
    "       [--seed N | --seeds A,B,...] [--grouping paper|colocation] [--training] [--json]\n"
    "       [--measure COMMAND ...] [--report FILE | --reuse FILE,...]\n"
    "   or: devplace compare --suite paper [--methods A,B,...] [--budget SECONDS] [--iterations N] [--json]\n"
    "       [--report FILE | --jobs N] [--reuse FILE,...] [--seeds A,B,...]",
    "Runs each method with the same budget and seed and prints its step time (OOM where a device runs\n"
    "out of memory), its search time, its speed-up over the best of the paper's baselines that ran, and\n"
    "its ratio to the step-time lower bound. Methods default to every method but exhaustive and the\n"
    "learned ones (rl, hierarchical: they train for minutes; name them in --methods). --suite paper\n"
    "prints the paper's Table 1 instead: RNNLM, NMT and Inception-V3 on k80x2 and k80x4, one column per\n"
    "method; its default methods add the learned ones as the last columns. A method that fails shows\n"
    "'failed' and its error, and the others still run. --measure scores every method's placements with\n"
    "one external measurer (docs/measurer.md), shared so that a placement is measured once.\n"
    "The searching methods (random-search, local-search, and the learned rl, hierarchical) run at an\n"
    "equal budget: " + std::to_string(kDefaultCompareEvaluations) +
        " evaluations each by default; --evaluations N sets the number, --budget SECONDS a\n"
    "time limit instead (or as well). The other methods make no evaluations of their own.\n"
    "--seeds A,B,... runs every method once per seed and gives each one's median over the seeds (a\n"
    "learned method's answer depends on its seed); the table adds each seed's step time, --json each\n"
    "seed's results.",
    with_compare_budget(with_report_option(with_measure_options(with_placer_options(with_graph_load_options({{"graph", "SRC", "graph file or zoo:NAME[:k=v,...]"},
                         {"cluster", "CL", "cluster JSON file or preset name"},
                         {"suite", "NAME", "a fixed set of graphs and clusters instead: paper (Table 1)"},
                         {"methods", "A,B,...",
                          "the methods to run (default: all but exhaustive and the learned ones, which --suite paper adds)"},
                         {"json", "", "print one JSON object"},
                         {"jobs", "N",
                          "--suite: run N rows at a time, each in its own devplace process (default 1; not with --report)"},
                         {"seeds", "A,B,...",
                          "run each method once per seed (positive integers) and give its median over them, instead of --seed"},
                         {"reuse", "FILE,...",
                          "take each method's result from the earlier --json answers (of compare on the same graph and cluster, "
                          "or of a suite) that ran it to the end at the same budget, seed and options; run only the others"}})))))
};

// The paper's baseline columns, in its order; other methods follow them.
struct PaperColumn {
  const char* method;
  const char* label;
};
constexpr PaperColumn kPaperColumns[] = {
    {"cpu", "CPU only"}, {"single-gpu", "Single GPU"}, {"scotch", "Scotch"}, {"mincut", "MinCut"}, {"expert", "Expert"},
};

// `methods` with the paper's columns first, in its order, then the rest as given.
std::vector<std::string> in_paper_order(const std::vector<std::string>& methods) {
  std::vector<std::string> ordered;
  auto has = [](const std::vector<std::string>& v, const std::string& m) { return std::find(v.begin(), v.end(), m) != v.end(); };
  for (const PaperColumn& col : kPaperColumns) {
    if (has(methods, col.method)) ordered.emplace_back(col.method);
  }
  for (const std::string& m : methods) {
    if (!has(ordered, m)) ordered.push_back(m);
  }
  return ordered;
}

std::string column_label(const std::string& method) {
  for (const PaperColumn& col : kPaperColumns) {
    if (method == col.method) return col.label;
  }
  return method;
}

int num_gpus(const Cluster& cluster) {
  int n = 0;
  for (const Device& d : cluster.devices()) n += d.kind == DeviceKind::kGpu;
  return n;
}

json::Json results_json(const Comparison& c) {
  json::Json results = json::Json::array();
  for (const MethodResult& r : c.results) results.push_back(method_result_json(r));
  return results;
}

// The options given that can change a method's result, {"name": value}
// (true for a flag): an answer records them so that --reuse takes only
// results made with the same ones. Left out: what names the problem,
// the methods, the budget and the seed (matched on their own), the files
// devplace writes, and what only changes how fast a run goes.
json::Json result_options_json(const Args& args) {
  static const char* const kNeutral[] = {"graph", "cluster", "suite",  "methods", "json",  "jobs",            "reuse",
                                         "seed",  "seeds",   "budget", "evaluations", "threads", "checkpoint-every"};
  json::Json j = json::Json::object();
  for (const OptionSpec& o : kSpec.options) {
    if (o.output || std::find(std::begin(kNeutral), std::end(kNeutral), o.name) != std::end(kNeutral)) continue;
    const std::optional<std::string> v = args.get(o.name);
    if (!v) continue;
    if (o.value.empty()) {
      j[o.name] = true;
    } else {
      j[o.name] = *v;
    }
  }
  return j;
}

// --reuse's files.
Result<std::vector<std::string>> reuse_files(const std::string& list) {
  std::vector<std::string> files;
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    if (comma == start) return invalid_input("--reuse: expected FILE[,FILE...], got '" + list + "'");
    files.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return files;
}

// What the footnote says of results taken from earlier answers: "FILE,
// FILE2; run now: rl, hierarchical".
std::string reused_what(const ReusedRow& reused) {
  std::vector<std::string> files;
  for (const std::string& f : reused.from) {
    if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  }
  std::string what;
  for (const std::string& f : files) what += (what.empty() ? "" : ", ") + f;
  for (size_t k = 0; k < reused.missing.size(); ++k) what += (k == 0 ? "; run now: " : ", ") + reused.missing[k];
  return what;
}

// Marks each result of a comparison's JSON that came from an earlier
// answer (`from`: its file, "" for one run now).
void mark_reused(json::Json& results, const std::vector<std::string>& from) {
  for (size_t k = 0; k < from.size(); ++k) {
    if (!from[k].empty()) results[k]["reused_from"] = from[k];
  }
}

// The step-time cell of a table: "463.3 ms", "OOM", or "failed".
std::string step_cell(const MethodResult& r) {
  if (r.not_run) return "-";
  if (r.not_applicable) return "n/a";
  if (!r.run) return "failed";
  const std::string mark = r.interrupted ? "*" : "";
  if (r.run->evaluation.failed) return "unmeasured" + mark;
  return (r.run->evaluation.oom ? "OOM" : format_seconds(r.run->evaluation.step_time_s)) + mark;
}

// The footnote for a comparison Ctrl-C cut short; empty when none was.
std::string interrupted_note(const std::vector<const Comparison*>& comparisons) {
  bool partial = false, skipped = false;
  for (const Comparison* c : comparisons) {
    for (const MethodResult& r : c->results) {
      partial = partial || r.interrupted;
      skipped = skipped || r.not_run;
    }
  }
  if (!partial && !skipped && !interrupt_requested()) return "";
  std::string note = "interrupted (Ctrl-C):";
  if (partial) note += " * marks a method stopped early, with the best placement it had found;";
  if (skipped) note += " - marks a method that did not run;";
  return note + " the results are partial.";
}

// The paper's baselines among the methods, for the table's footnote.
std::string paper_baselines_run(const Comparison& c) {
  std::string names;
  for (const MethodResult& r : c.results) {
    if (r.role == PlacerRole::kPaperBaseline) names += (names.empty() ? "" : ", ") + r.method;
  }
  return names.empty() ? "none run" : names;
}

// The footnote on the budget the searching methods shared, e.g. "budget: 4000
// evaluations per searching method (random-search, local-search)"; empty
// when no method searches.
std::string budget_note(const PlacerRunOptions& options, const std::vector<std::string>& methods) {
  std::string searching;
  bool learned = false;
  for (const PlacerInfo& info : placer_registry()) {
    if (!is_searching(info.role) || std::find(methods.begin(), methods.end(), info.name) == methods.end()) continue;
    searching += (searching.empty() ? "" : ", ") + std::string(info.name);
    learned = learned || info.role == PlacerRole::kLearned;
  }
  if (searching.empty()) return "";
  const Budget& b = options.budget;
  std::string limit;
  if (b.evaluations > 0) limit = std::to_string(b.evaluations) + " evaluations";
  if (b.seconds > 0)
    limit += limit.empty() ? format_seconds(b.seconds) + " of search"
                           : " or " + format_seconds(b.seconds) + " of search, whichever ends first,";
  std::string note = "budget: " + limit + " per searching method (" + searching + ")";
  if (auto it = options.method_options.find("iterations"); learned && it != options.method_options.end())
    note += "; the learned ones train " + it->second + " updates (--iterations)";
  return note;
}

// "1, 2, 3".
std::string seed_list(const std::vector<uint64_t>& seeds) {
  std::string list;
  for (uint64_t s : seeds) list += (list.empty() ? "" : ", ") + std::to_string(s);
  return list;
}

// `seeds`: the seeds of --seeds, whose medians `c` holds; empty for one seed.
void print_comparison(const Problem& problem, const Comparison& c, const std::string& budget, const std::vector<uint64_t>& seeds = {}) {
  const Cluster& cl = problem.cluster();
  std::cout << "graph        " << problem.graph().name() << " (" << problem.num_ops() << " ops"
            << (problem.graph().has_backward() ? ", training step" : ", forward only") << ")\n"
            << "cluster      " << cl.name() << " (" << cl.num_devices() << " devices)\n"
            << "lower bound  " << format_seconds(c.lower_bound.value_s()) << " (" << binding_part(c.lower_bound)
            << " binds)\n";
  if (!seeds.empty()) std::cout << "seeds        " << seed_list(seeds) << " (each figure below: the median over them)\n";
  std::cout << "\n";
  // Wide enough for the longest name (a learned method's may name its stages).
  size_t method_width = 16;
  for (const MethodResult& r : c.results) method_width = std::max(method_width, shown_method(r).size() + 2);
  std::cout << pad_right("method", method_width) << pad_left("step time", 12) << pad_left("", 4) << pad_left("search time", 13)
            << pad_left("evaluations", 13) << pad_left("speed-up", 10) << pad_left("vs bound", 10) << "\n";
  for (const MethodResult& r : c.results) {
    std::cout << pad_right(shown_method(r), method_width);
    if (r.not_run) {
      std::cout << pad_left("-", 12) << "    not run (Ctrl-C)\n";
      continue;
    }
    if (!r.run) {
      std::cout << (r.not_applicable ? "n/a: " : "failed: ") << r.error << "\n";
      continue;
    }
    std::cout << pad_left(format_seconds(r.run->evaluation.step_time_s) + (r.interrupted ? "*" : ""), 12)
              << pad_left(r.run->evaluation.failed ? "ERR" : r.run->evaluation.oom ? "OOM" : "", 4)
              << pad_left(format_seconds(r.run->search_time_s), 13) << pad_left(std::to_string(r.run->evaluations), 13)
              << pad_left(format_ratio(r.speedup_over_paper_baselines), 10) << pad_left(format_ratio(r.ratio_to_lower_bound), 10)
              << "\n";
  }
  std::cout << "\nspeed-up: the fastest paper baseline's step time (of " << paper_baselines_run(c) << ") over the method's.\n"
            << "vs bound: the method's step time over the lower bound. OOM: a device runs out of memory.\n";
  if (!budget.empty()) std::cout << budget << "; evaluations: what each method made.\n";
  if (const std::string curves = curves_table({{"", &c}}); !curves.empty())
    std::cout << "\nbest step time found after N evaluations (each searching method's run above):\n" << curves;
  std::cout << final_policies_table({{"", &c}});
  if (const std::string note = interrupted_note({&c}); !note.empty()) std::cout << note << "\n";
  if (std::any_of(c.results.begin(), c.results.end(), [](const MethodResult& r) { return r.run && r.run->evaluation.failed; }))
    std::cout << "ERR: the measurer could not measure the placement; its step time is the failure penalty.\n";
}

// With --seeds: each method's step time per seed, beside the median the
// table above gave.
void print_seeds(const Comparison& median, const std::vector<Comparison>& per_seed, const std::vector<uint64_t>& seeds) {
  size_t method_width = 16;
  for (const MethodResult& r : median.results) method_width = std::max(method_width, shown_method(r).size() + 2);
  std::cout << "\nstep time per seed (the table above gives each method's median over seeds " << seed_list(seeds) << "):\n"
            << pad_right("method", method_width);
  for (size_t i = 0; i < seeds.size(); ++i) std::cout << pad_left("seed " + std::to_string(seeds[i]), 12);
  std::cout << pad_left("median", 12) << "\n";
  for (size_t m = 0; m < median.results.size(); ++m) {
    std::cout << pad_right(shown_method(median.results[m]), method_width);
    for (size_t i = 0; i < seeds.size(); ++i) std::cout << pad_left(i < per_seed.size() ? step_cell(per_seed[i].results[m]) : "-", 12);
    std::cout << pad_left(step_cell(median.results[m]), 12) << "\n";
  }
}

Status compare_one(const Args& args, const std::vector<std::string>& methods, const PlacerRunOptions& options) {
  if (!args.get("graph")) return invalid_input("missing required option '--graph SRC' (see --help)");
  if (!args.get("cluster")) return invalid_input("missing required option '--cluster CL' (see --help)");
  DEVPLACE_ASSIGN_OR_RETURN(const GraphLoadOptions load, graph_load_options(args));
  DEVPLACE_ASSIGN_OR_RETURN(LoadedProblem loaded, load_problem(*args.get("graph"), *args.get("cluster"), load));
  DEVPLACE_ASSIGN_OR_RETURN(const std::optional<MeasurerOptions> measure, measurer_options(args, *args.get("graph")));
  std::optional<std::vector<uint64_t>> seeds;
  if (const std::optional<std::string> text = args.get("seeds")) {
    DEVPLACE_ASSIGN_OR_RETURN(seeds, parse_seeds(*text));
  }
  // --reuse: the results earlier answers finished (suite_reuse.h); only
  // the other methods run.
  std::optional<ReusedRow> reused;
  std::vector<std::string> to_run = methods;
  if (const std::optional<std::string> reuse = args.get("reuse")) {
    DEVPLACE_ASSIGN_OR_RETURN(const std::vector<std::string> files, reuse_files(*reuse));
    const std::string graph_name = loaded.graph->name(), graph_arg = *args.get("graph"), cluster_arg = *args.get("cluster");
    std::vector<std::string> notes;
    DEVPLACE_ASSIGN_OR_RETURN(reused, find_reusable_results(SuiteRow{graph_name.c_str(), graph_arg.c_str(), cluster_arg.c_str()}, loaded,
                                                            files, {methods, options.budget, options.seed, result_options_json(args)},
                                                            &notes));
    for (const std::string& note : notes) std::cerr << "devplace: --reuse: " << note << "\n";
    if (reused) to_run = reused->missing;
  }
  std::unique_ptr<Measurer> measurer;
  if (measure && !to_run.empty()) {
    DEVPLACE_ASSIGN_OR_RETURN(measurer, Measurer::start(loaded.problem, *measure));
  }
  clear_interrupt();
  std::optional<InterruptScope> scope(std::in_place);  // Ctrl-C stops the methods, then the table is printed
  std::vector<Comparison> per_seed;  // with --seeds
  Comparison c;
  std::vector<std::string> from;  // with --reuse: the answer each result came from, "" for one run now
  if (seeds) {
    for (uint64_t seed : *seeds) {
      if (interrupt_requested()) break;
      PlacerRunOptions seeded = options;
      seeded.seed = seed;
      per_seed.push_back(compare_methods(loaded.problem, methods, seeded, measurer.get()));
    }
    c = median_over_seeds(per_seed);
    // Seeds that did not run (Ctrl-C): every median is partial.
    if (per_seed.size() < seeds->size()) {
      for (MethodResult& r : c.results) r.interrupted = true;
    }
  } else if (!reused) {
    c = compare_methods(loaded.problem, methods, options, measurer.get());
  } else {
    std::optional<Comparison> fresh;
    if (!to_run.empty()) fresh = compare_methods(loaded.problem, to_run, options, measurer.get());
    c = merge_reused(*reused, std::move(fresh), methods, &from);
  }
  scope.reset();
  if (measurer) std::cerr << "devplace: " << measurer->summary() << "\n";
  DEVPLACE_ASSIGN_OR_RETURN(const std::optional<std::string> report_file, report_path(args));
  if (report_file) {
    report::Report rep{"compare: " + problem_title(loaded.problem), {comparison_section(problem_title(loaded.problem), loaded.problem, c)}, {}};
    DEVPLACE_ASSIGN_OR_RETURN(rep.curves, training_curves(method_option(options, "training-log")));
    DEVPLACE_RETURN_IF_ERROR(write_report(*report_file, rep));
  }
  if (!args.flag("json")) {
    print_comparison(loaded.problem, c, budget_note(options, methods), seeds.value_or(std::vector<uint64_t>{}));
    if (seeds) print_seeds(c, per_seed, *seeds);
    if (reused)
      std::cout << "results taken from earlier answers, at the same budget, seed and options (--reuse): " << reused_what(*reused) << ".\n";
    return Status::ok_status();
  }
  json::Json j = {{"graph", loaded.graph->name()},
                  {"cluster", loaded.cluster->name()},
                  {"ops", loaded.problem.num_ops()},
                  {"lower_bound_s", c.lower_bound.value_s()},
                  {"lower_bound", lower_bound_json(c.lower_bound)},
                  {"best_paper_baseline_s", number_or_null(c.best_paper_baseline_s)},
                  {"evaluator", measurer ? "measurer" : "simulator"},
                  {"budget", budget_json(options.budget)},
                  {"seed", options.seed},
                  {"options", result_options_json(args)},
                  {"results", results_json(c)},
                  {"interrupted", interrupt_requested()}};
  mark_reused(j["results"], from);
  if (seeds) {
    // "results" holds the medians; each seed's are under "per_seed".
    j.erase("seed");
    j["seeds"] = *seeds;
    json::Json runs = json::Json::array();
    for (size_t i = 0; i < per_seed.size(); ++i) runs.push_back({{"seed", (*seeds)[i]}, {"results", results_json(per_seed[i])}});
    j["per_seed"] = std::move(runs);
  }
  std::cout << j.dump(2) << "\n";
  return Status::ok_status();
}

// The arguments of a child that runs one row of the suite: compare on the
// row's graph and cluster, with the suite's methods and every option given
// but those that make it a suite (--suite, --jobs, --report, --json).
ArgList row_command(const Args& args, const SuiteRow& row, const std::vector<std::string>& methods) {
  std::string list;
  for (const std::string& m : methods) list += (list.empty() ? "" : ",") + m;
  ArgList cmd = {"compare", "--graph", row.graph, "--cluster", row.cluster, "--methods", list, "--json"};
  for (const OptionSpec& o : kSpec.options) {
    if (o.name == "suite" || o.name == "jobs" || o.name == "report" || o.name == "json" || o.name == "methods" ||
        o.name == "reuse")
      continue;
    const std::optional<std::string> v = args.get(o.name);
    if (!v) continue;
    cmd.push_back("--" + o.name);
    if (!o.value.empty()) cmd.push_back(*v);
  }
  return cmd;
}

// A row whose process failed: every method failed with its message.
Comparison failed_row(const std::vector<std::string>& methods, const std::string& error) {
  Comparison c;
  c.best_paper_baseline_s = std::numeric_limits<double>::infinity();
  for (const std::string& m : methods) {
    MethodResult r;
    r.method = m;
    r.error = error;
    c.results.push_back(std::move(r));
  }
  return c;
}

// The rows of the suite, each as `devplace compare --json` of its
// `methods_of_row` in its own process, `jobs` at a time; a row with no
// methods to run, or not started (Ctrl-C), stays empty.
Result<std::vector<std::optional<Comparison>>> run_rows_in_children(const Args& args,
                                                                    const std::vector<std::vector<std::string>>& methods_of_row,
                                                                    int jobs) {
  std::vector<ArgList> commands;
  std::vector<size_t> row_of;  // commands[k] runs row row_of[k]
  for (size_t i = 0; i < std::size(kPaperSuite); ++i) {
    if (methods_of_row[i].empty()) continue;
    commands.push_back(row_command(args, kPaperSuite[i], methods_of_row[i]));
    row_of.push_back(i);
  }
  const auto started = std::chrono::steady_clock::now();
  size_t finished = 0;
  DEVPLACE_ASSIGN_OR_RETURN(
      const std::vector<ChildResult> children,
      run_devplace_children(commands, jobs, [&](size_t k, const ChildResult& r) {
        const size_t i = row_of[k];
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::cerr << "devplace: row " << i + 1 << " of " << std::size(kPaperSuite) << " (" << kPaperSuite[i].model << ", "
                  << kPaperSuite[i].cluster << ") "
                  << (r.exit_code == 0 ? "done" : r.exit_code == 130 ? "interrupted" : "failed") << " after "
                  << format_seconds(s) << " (" << ++finished << " done)\n";
      }));
  std::vector<std::optional<Comparison>> rows(std::size(kPaperSuite));
  for (size_t k = 0; k < children.size(); ++k) {
    const size_t i = row_of[k];
    const ChildResult& r = children[k];
    if (!r.ran) continue;
    const std::string what = std::string("row ") + kPaperSuite[i].model + " on " + kPaperSuite[i].cluster;
    // 130: the row was interrupted (Ctrl-C), and its answer holds what it had.
    if (r.exit_code != 0 && r.exit_code != 130) {
      rows[i] = failed_row(methods_of_row[i], "its process failed (exit code " + std::to_string(r.exit_code) + "): " + r.last_error);
      continue;
    }
    Result<json::Json> answer = json::parse_text(r.out, what);
    Result<Comparison> c = answer.ok() ? comparison_from_json(answer.value(), what) : Result<Comparison>(answer.error());
    rows[i] = c.ok() ? std::move(c).value() : failed_row(methods_of_row[i], c.error().message());
  }
  return rows;
}

Status compare_paper_suite(const Args& args, const std::vector<std::string>& methods, const PlacerRunOptions& options) {
  const std::vector<std::string> ordered = in_paper_order(methods);
  const bool as_json = args.flag("json");
  DEVPLACE_ASSIGN_OR_RETURN(const std::optional<std::string> report_file, report_path(args));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t jobs_given, args.get_int_or("jobs", 1));
  if (jobs_given < 1) return invalid_input("--jobs: expected a positive integer, got " + std::to_string(jobs_given));
  const int jobs = static_cast<int>(std::min<int64_t>(jobs_given, std::size(kPaperSuite)));
  // --seeds: each row runs `compare --seeds` in its own process, which
  // answers with the medians (as with --jobs).
  std::optional<std::vector<uint64_t>> seeds;
  if (const std::optional<std::string> text = args.get("seeds")) {
    DEVPLACE_ASSIGN_OR_RETURN(seeds, parse_seeds(*text));
    if (report_file) return invalid_input("--report cannot be combined with --seeds: a median has no placement to show");
  }
  const bool in_children = jobs > 1 || seeds.has_value();
  if (jobs > 1 && report_file)
    return invalid_input("--report cannot be combined with --jobs: the rows' processes keep their placements (run the suite with --jobs 1)");
  // --reuse: the results earlier answers finished (suite_reuse.h).
  std::vector<std::optional<ReusedRow>> reused(std::size(kPaperSuite));
  if (const std::optional<std::string> reuse = args.get("reuse")) {
    DEVPLACE_ASSIGN_OR_RETURN(const std::vector<std::string> files, reuse_files(*reuse));
    std::vector<std::string> notes;
    DEVPLACE_ASSIGN_OR_RETURN(reused, find_reusable_rows(kPaperSuite, files, {ordered, options.budget, options.seed, result_options_json(args)},
                                                         &notes));
    for (const std::string& note : notes) std::cerr << "devplace: --reuse: " << note << "\n";
  }
  // What each row runs: every method, or those no earlier answer finished.
  std::vector<std::vector<std::string>> methods_of_row(std::size(kPaperSuite), ordered);
  for (size_t i = 0; i < methods_of_row.size(); ++i) {
    if (reused[i]) methods_of_row[i] = reused[i]->missing;
  }
  std::vector<size_t> widths;
  if (!as_json) {
    std::cout << pad_right("model", 14) << pad_left("#GPUs", 6);
    for (const std::string& m : ordered) {
      widths.push_back(std::max<size_t>(column_label(m).size(), 10) + 2);
      std::cout << pad_left(column_label(m), widths.back());
    }
    std::cout << pad_left("speed-up", 10) << pad_left("bound", 12) << "\n" << std::flush;
  }
  json::Json rows = json::Json::array();
  std::vector<std::string> failures;
  // A row's line of the table, or its object of the JSON; `from`: the
  // earlier answer each result came from, "" for one run now.
  auto emit = [&](const SuiteRow& row, const Comparison& c, const std::vector<std::string>& from) -> Status {
    DEVPLACE_ASSIGN_OR_RETURN(const Cluster cluster, load_cluster(row.cluster));
    const int gpus = num_gpus(cluster);
    const double speedup = ratio(c.best_paper_baseline_s, best_other_s(c));
    if (as_json) {
      rows.push_back({{"model", row.model},
                      {"graph", row.graph},
                      {"cluster", row.cluster},
                      {"gpus", gpus},
                      {"lower_bound_s", c.lower_bound.value_s()},
                      {"lower_bound", lower_bound_json(c.lower_bound)},
                      {"best_paper_baseline_s", number_or_null(c.best_paper_baseline_s)},
                      {"speedup", number_or_null(speedup)},
                      {"results", results_json(c)}});
      mark_reused(rows.back()["results"], from);
      return Status::ok_status();
    }
    std::cout << pad_right(row.model, 14) << pad_left(std::to_string(gpus), 6);
    for (size_t i = 0; i < c.results.size(); ++i) {
      std::cout << pad_left(step_cell(c.results[i]), widths[i]);
      if (!c.results[i].run && !c.results[i].not_run && !c.results[i].not_applicable)
        failures.push_back(std::string(row.model) + " on " + row.cluster + ", " + c.results[i].method + ": " + c.results[i].error);
    }
    std::cout << pad_left(format_ratio(speedup), 10) << pad_left(format_seconds(c.lower_bound.value_s()), 12) << "\n" << std::flush;
    return Status::ok_status();
  };
  // The report needs every row's problem until it is written.
  std::vector<LoadedProblem> problems;
  problems.reserve(std::size(kPaperSuite));
  report::Report rep{"The paper's Table 1, simulated (Mirhoseini et al. 2017)", {}, {}};
  // Ctrl-C stops the method running (a learned one saves a checkpoint and
  // returns its best so far), skips the rest, and prints the rows done.
  clear_interrupt();
  std::optional<InterruptScope> scope(std::in_place);
  std::vector<Comparison> done;
  done.reserve(std::size(kPaperSuite));
  std::vector<bool> row_ran(std::size(kPaperSuite), false);
  size_t rows_run = 0;
  size_t rows_reused = 0;
  // Per row that took results from earlier answers: "FILE; run now: rl, hierarchical".
  std::vector<std::string> reused_what(std::size(kPaperSuite));
  // Row i from its reused results and `fresh`, the run of the rest (if any).
  auto finish_row = [&](size_t i, std::optional<Comparison> fresh) -> Status {
    row_ran[i] = true;
    if (!reused[i]) {
      ++rows_run;
      done.push_back(std::move(*fresh));
      return emit(kPaperSuite[i], done.back(), {});
    }
    if (fresh) {
      ++rows_run;
    } else {
      ++rows_reused;
    }
    reused_what[i] = cli::reused_what(*reused[i]);
    std::vector<std::string> from;
    done.push_back(merge_reused(std::move(*reused[i]), std::move(fresh), ordered, &from));
    return emit(kPaperSuite[i], done.back(), from);
  };
  if (in_children) {
    DEVPLACE_ASSIGN_OR_RETURN(std::vector<std::optional<Comparison>> results, run_rows_in_children(args, methods_of_row, jobs));
    for (size_t i = 0; i < results.size(); ++i) {
      // A row with methods to run that did not start (Ctrl-C) is left out.
      if (!methods_of_row[i].empty() && !results[i]) continue;
      DEVPLACE_RETURN_IF_ERROR(finish_row(i, std::move(results[i])));
    }
  } else {
    for (size_t i = 0; i < std::size(kPaperSuite); ++i) {
      const SuiteRow& row = kPaperSuite[i];
      if (methods_of_row[i].empty()) {
        DEVPLACE_RETURN_IF_ERROR(finish_row(i, std::nullopt));
        continue;
      }
      if (interrupt_requested()) continue;  // the rows reused after it are still shown
      DEVPLACE_ASSIGN_OR_RETURN(LoadedProblem loaded_row, load_problem(row.graph, row.cluster, GraphLoadOptions{}));
      problems.push_back(std::move(loaded_row));
      const LoadedProblem& loaded = problems.back();
      Comparison c = compare_methods(loaded.problem, methods_of_row[i], options);
      if (report_file) {
        rep.sections.push_back(comparison_section(std::string(row.model) + " on " + row.cluster + " (" + row.graph + ")",
                                                  loaded.problem, c));
      }
      DEVPLACE_RETURN_IF_ERROR(finish_row(i, std::move(c)));
    }
  }
  scope.reset();
  if (report_file) DEVPLACE_RETURN_IF_ERROR(write_report(*report_file, rep));
  if (as_json) {
    json::Json answer = {{"suite", "paper"}, {"budget", budget_json(options.budget)}, {"seed", options.seed},
                         {"options", result_options_json(args)},
                         {"rows", rows}, {"interrupted", interrupt_requested()}};
    if (seeds) {
      answer.erase("seed");
      answer["seeds"] = *seeds;
    }
    std::cout << answer.dump(2) << "\n";
    return Status::ok_status();
  }
  std::cout << "\nTable 1 of Mirhoseini et al. 2017, simulated: step times are simulated seconds per training step\n"
               "on the cluster presets k80x2 and k80x4 (Haswell CPU + K80 dies). OOM: a device runs out of memory.\n"
               "speed-up: the fastest paper baseline over the fastest other method. bound: the lower bound on the\n"
               "step time of any placement.\n";
  if (const std::string budget = budget_note(options, ordered); !budget.empty())
    std::cout << budget << "; each cell's evaluations in --json.\n";
  if (seeds) std::cout << "each cell: the median over seeds " << seed_list(*seeds) << " (--seeds; each seed's step times in the rows' --json).\n";
  if (jobs > 1 && rows_run > 0) std::cout << "rows run " << jobs << " at a time, each in its own process (--jobs).\n";
  if (std::any_of(reused_what.begin(), reused_what.end(), [](const std::string& w) { return !w.empty(); })) {
    std::string list;
    if (std::all_of(reused_what.begin(), reused_what.end(), [&](const std::string& w) { return w == reused_what[0]; })) {
      list = "every row (" + reused_what[0] + ")";
    } else {
      for (size_t i = 0; i < reused_what.size(); ++i) {
        if (reused_what[i].empty()) continue;
        list += std::string(list.empty() ? "" : ", ") + kPaperSuite[i].model + " " + kPaperSuite[i].cluster + " (" + reused_what[i] + ")";
      }
    }
    std::cout << "results taken from earlier answers, at the same budget, seed and options (--reuse): " << list << ".\n";
  }
  {
    std::vector<std::pair<std::string, const Comparison*>> labelled;
    for (size_t i = 0, k = 0; i < std::size(kPaperSuite) && k < done.size(); ++i) {
      if (!row_ran[i]) continue;
      labelled.emplace_back(std::string(kPaperSuite[i].model) + " " + kPaperSuite[i].cluster, &done[k++]);
    }
    if (const std::string curves = curves_table(labelled); !curves.empty())
      std::cout << "\nsample efficiency: the best step time each searching method had found after N evaluations, from\n"
                   "the runs above:\n"
                << curves;
    std::cout << final_policies_table(labelled);
  }
  for (const std::string& f : failures) std::cout << "failed: " << f << "\n";
  std::vector<const Comparison*> all;
  for (const Comparison& c : done) all.push_back(&c);
  if (const std::string note = interrupted_note(all); !note.empty())
    std::cout << note << " Rows run: " << rows_run << " of " << std::size(kPaperSuite) - rows_reused << ".\n";
  return Status::ok_status();
}

// --training-log, --checkpoint and --resume name one file: one learned run.
Status check_training_files(const PlacerRunOptions& options, const std::vector<std::string>& methods, size_t problems) {
  size_t learned = 0;
  for (const PlacerInfo& info : placer_registry()) {
    if (info.role == PlacerRole::kLearned && std::find(methods.begin(), methods.end(), info.name) != methods.end()) ++learned;
  }
  if (learned * problems <= 1) return Status::ok_status();
  for (const char* flag : {"training-log", "checkpoint", "resume"}) {
    if (options.method_options.count(flag) > 0)
      return invalid_input("--" + std::string(flag) + ": names one file, but this comparison trains " + std::to_string(learned * problems) +
                           " learned runs (use devplace place, or one learned method on one graph)");
  }
  return Status::ok_status();
}

}  // namespace

Status run_compare(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  const std::optional<std::string> suite = args.get("suite");
  if (suite && (args.get("graph") || args.get("cluster")))
    return invalid_input("--suite cannot be combined with --graph or --cluster");
  if (args.flag("distributed")) return invalid_input("--distributed works with devplace place, not compare");
  if (suite && args.get("measure"))
    return invalid_input("--measure cannot be combined with --suite: the suite's zoo models have no real runs");
  if (suite && *suite != "paper") return invalid_input("--suite: expected 'paper', got '" + *suite + "'");
  if (!suite && args.get("jobs")) return invalid_input("--jobs runs the rows of a --suite side by side; one graph runs in one process");
  if (args.get("reuse") && args.get("seeds")) return invalid_input("--reuse cannot be combined with --seeds: earlier answers are one seed's");
  if (args.get("reuse") && args.get("report"))
    return invalid_input("--report cannot be combined with --reuse: earlier answers do not hold the placements");
  if (args.get("seeds") && args.get("seed")) return invalid_input("--seeds runs every seed it names: drop --seed");
  if (!suite && args.get("seeds") && args.get("report"))
    return invalid_input("--report cannot be combined with --seeds: a median has no placement to show");
  DEVPLACE_ASSIGN_OR_RETURN(const std::vector<std::string> methods,
                            resolve_methods(args.get("methods"), /*with_learned=*/suite.has_value()));
  DEVPLACE_ASSIGN_OR_RETURN(PlacerRunOptions options, placer_run_options(args));
  // Equal budget: without a limit of their own, every searching method makes
  // the same number of evaluations (not each its own default).
  if (!args.get("evaluations") && !args.get("budget")) options.budget.evaluations = kDefaultCompareEvaluations;
  DEVPLACE_RETURN_IF_ERROR(check_method_options(methods, options));
  size_t runs_per_method = suite ? std::size(kPaperSuite) : 1;
  if (const std::optional<std::string> text = args.get("seeds")) {
    DEVPLACE_ASSIGN_OR_RETURN(const std::vector<uint64_t> seeds, parse_seeds(*text));
    runs_per_method *= seeds.size();
  }
  DEVPLACE_RETURN_IF_ERROR(check_training_files(options, methods, runs_per_method));
  return suite ? compare_paper_suite(args, methods, options) : compare_one(args, methods, options);
}

}  // namespace devplace::cli
