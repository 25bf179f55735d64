// File: measure_options.cc
#include "cli/measure_options.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "common/progress.h"

namespace devplace::cli {

namespace {

Result<double> positive_seconds(const Args& args, const std::string& name, double fallback) {
  const std::optional<std::string> text = args.get(name);
  if (!text) return fallback;
  double s = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), s);
  if (ec != std::errc() || ptr != text->data() + text->size() || !std::isfinite(s) || s <= 0)
    return invalid_input("--" + name + ": expected a positive number of seconds, got '" + *text + "'");
  return s;
}

Result<int> count(const Args& args, const std::string& name, int fallback, int min) {
  const std::optional<std::string> text = args.get(name);
  if (!text) return fallback;
  int n = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
  if (ec != std::errc() || ptr != text->data() + text->size() || n < min || n > 1'000'000)
    return invalid_input("--" + name + ": expected an integer >= " + std::to_string(min) + ", got '" + *text + "'");
  return n;
}

}  // namespace

std::vector<OptionSpec> with_measure_options(std::vector<OptionSpec> options) {
  options.push_back({"measure", "COMMAND", "score placements by running them with this measurer (docs/measurer.md), not the simulator"});
  options.push_back({"measure-warmup", "N", "steps the measurer runs and drops (default 2)"});
  options.push_back({"measure-repeats", "N", "steps it measures; the answer is their median (default 5)"});
  options.push_back({"measure-timeout", "SECONDS", "longest wait for one placement's answer (default 60)"});
  options.push_back({"measure-startup-timeout", "SECONDS", "longest wait for the measurer to start (default 300)"});
  options.push_back({"measure-failure-time", "SECONDS", "step time given to a placement that could not be measured (default 100)"});
  options.push_back({"measure-log", "FILE", "write every measurement and fault (JSON lines)", false, true});
  options.push_back({"measure-recheck", "N", "place: measure the chosen placement N more times, past the cache (default 3; 0: none)"});
  options.push_back({"measure-no-cache", "", "measure a placement again each time it comes (default: once, then from the cache)"});
  return options;
}

Result<std::optional<MeasurerOptions>> measurer_options(const Args& args, const std::string& graph_source) {
  const std::optional<std::string> command = args.get("measure");
  if (!command) {
    for (const char* name : {"measure-warmup", "measure-repeats", "measure-timeout", "measure-startup-timeout",
                             "measure-failure-time", "measure-log", "measure-no-cache", "measure-recheck"}) {
      if (args.flag(name)) return invalid_input(std::string("--") + name + " needs --measure");
    }
    return std::optional<MeasurerOptions>();
  }
  if (command->find_first_not_of(" \t") == std::string::npos) return invalid_input("--measure: expected a command, got ''");
  MeasurerOptions m;
  m.command = *command;
  std::error_code ec;
  m.graph_source = graph_source;
  if (std::filesystem::is_regular_file(graph_source, ec)) m.graph_source = std::filesystem::absolute(graph_source, ec).string();
  DEVPLACE_ASSIGN_OR_RETURN(m.warmup, count(args, "measure-warmup", m.warmup, 0));
  DEVPLACE_ASSIGN_OR_RETURN(m.repeats, count(args, "measure-repeats", m.repeats, 1));
  DEVPLACE_ASSIGN_OR_RETURN(m.timeout_s, positive_seconds(args, "measure-timeout", m.timeout_s));
  DEVPLACE_ASSIGN_OR_RETURN(m.startup_timeout_s, positive_seconds(args, "measure-startup-timeout", m.startup_timeout_s));
  DEVPLACE_ASSIGN_OR_RETURN(m.failure_time_s, positive_seconds(args, "measure-failure-time", m.failure_time_s));
  m.cache = !args.flag("measure-no-cache");
  m.progress = stderr_is_terminal();
  DEVPLACE_ASSIGN_OR_RETURN(m.recheck, count(args, "measure-recheck", m.recheck, 0));
  if (const std::optional<std::string> log = args.get("measure-log")) {
    if (log->empty()) return invalid_input("--measure-log: expected a file name, got ''");
    m.log_path = *log;
  }
  return std::optional<MeasurerOptions>(std::move(m));
}

json::Json measurer_json(const Measurer& m) {
  const MeasurerStats& s = m.stats();
  return {{"name", m.measurer_name()}, {"measured", s.measured}, {"cache_hits", s.cache_hits}, {"ooms", s.ooms},
          {"errors", s.errors}, {"timeouts", s.timeouts}, {"exits", s.exits}, {"garbage", s.garbage},
          {"failed_starts", s.startup_faults}, {"starts", s.starts},
          {"processes_started", s.starts + s.startup_faults}, {"cache", m.caches()}};
}

}  // namespace devplace::cli
