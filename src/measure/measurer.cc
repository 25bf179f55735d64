// File: measurer.cc
#include "measure/measurer.h"

#include <chrono>
#include <cmath>
#include <iostream>
#include <sstream>

#include "common/interrupt.h"
#include "common/json_reader.h"
#include "common/progress.h"
#include "measure/protocol.h"

namespace devplace {

namespace {

using json::Json;
constexpr size_t kMaxLineBytes = 1 << 20;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

}  // namespace

size_t Measurer::PlacementHash::operator()(const std::vector<DeviceId>& v) const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the device ids
  for (DeviceId d : v) {
    h ^= static_cast<uint64_t>(static_cast<uint32_t>(d));
    h *= 1099511628211ull;
  }
  return static_cast<size_t>(h);
}

Measurer::Measurer(const Problem& problem, MeasurerOptions options)
    : problem_(&problem), options_(std::move(options)), start_time_s_(now_s()) {}

Result<std::unique_ptr<Measurer>> Measurer::start(const Problem& problem, MeasurerOptions options) {
  if (options.command.empty()) return invalid_input("--measure: empty command");
  if (options.warmup < 0 || options.repeats < 1) return invalid_input("measurer: warmup must be >= 0 and repeats >= 1");
  std::unique_ptr<Measurer> m(new Measurer(problem, std::move(options)));
  if (!m->options_.log_path.empty()) {
    m->log_ = std::fopen(m->options_.log_path.c_str(), "w");
    if (m->log_ == nullptr) return invalid_input(m->options_.log_path + ": cannot write the measurer log");
  }
  DEVPLACE_RETURN_IF_ERROR(m->ensure_running());
  return m;
}

Measurer::~Measurer() {
  if (child_.running()) {
    (void)child_.write_line(measure_protocol::bye());
    child_.stop(2.0);
  }
  if (log_ != nullptr) std::fclose(log_);
}

double Measurer::wall_s() const { return now_s() - start_time_s_; }

void Measurer::log_event(const std::string& json_line) {
  if (log_ == nullptr) return;
  std::fputs(json_line.c_str(), log_);
  std::fputc('\n', log_);
  std::fflush(log_);  // a crash of devplace keeps every event so far
}

ChildProcess::ReadResult Measurer::read_answer(double timeout_s, const std::string& what, std::string& line) {
  // Made now (it draws nothing until its first update), so that its clock,
  // and the time left it shows, count from the start of the wait.
  ProgressBar bar("measurer", options_.progress);
  const ChildProcess::ReadResult result = child_.read_line(timeout_s, kMaxLineBytes, line, [&](double waited_s) {
    if (waited_s < kSilentWaitS) return;
    bar.update(static_cast<int64_t>(waited_s), waited_s / timeout_s,
                what + ": no answer for " + std::to_string(static_cast<int64_t>(waited_s)) + " s (timeout " +
                    seconds_text(timeout_s) + ")");
  });
  bar.finish();
  return result;
}

Status Measurer::try_start(bool& refused) {
  refused = false;
  DEVPLACE_RETURN_IF_ERROR(child_.start(options_.command));
  const std::string hello = measure_protocol::hello(*problem_, options_.graph_source, options_.warmup, options_.repeats);
  if (Status s = child_.write_line(hello); !s.ok()) return invalid_input("exited (" + child_.stop(0) + ") before reading hello");
  std::string line;
  switch (read_answer(options_.startup_timeout_s, "hello", line)) {
    case ChildProcess::ReadResult::kTimeout:
      child_.stop(0);
      return invalid_input("no answer to hello within " + seconds_text(options_.startup_timeout_s));
    case ChildProcess::ReadResult::kInterrupted:
      child_.stop(0);
      refused = true;  // not retried
      return invalid_input("interrupted (Ctrl-C) before it answered hello");
    case ChildProcess::ReadResult::kClosed:
      return invalid_input("exited (" + child_.stop(1.0) + ") before answering hello");
    case ChildProcess::ReadResult::kTooLong:
      child_.stop(0);
      return invalid_input("answered hello with a line over 1 MiB");
    case ChildProcess::ReadResult::kLine:
      break;
  }
  Result<measure_protocol::ReadyAnswer> ready = measure_protocol::parse_ready(line);
  if (!ready.ok()) {
    child_.stop(0);
    return invalid_input("bad answer to hello: " + ready.error().message());
  }
  if (!ready.value().ready) {
    refused = true;
    (void)child_.write_line(measure_protocol::bye());
    child_.stop(2.0);
    return invalid_input(ready.value().text);
  }
  measurer_name_ = ready.value().text;
  return Status::ok_status();
}

Status Measurer::ensure_running() {
  if (child_.running()) return Status::ok_status();
  std::string last;
  for (int attempt = 1; attempt <= options_.max_start_failures; ++attempt) {
    const double t0 = now_s();
    bool refused = false;
    const Status s = try_start(refused);
    if (s.ok()) {
      ++stats_.starts;
      log_event(Json{{"event", "start"}, {"attempt", attempt}, {"wall_s", now_s() - t0}, {"measurer", measurer_name_}}.dump());
      return s;
    }
    ++stats_.startup_faults;
    last = s.error().message();
    log_event(Json{{"event", "fault"}, {"kind", "startup"}, {"attempt", attempt}, {"message", last}}.dump());
    // A measurer that answers hello with an error has decided: it is not
    // asked again. Each other failed attempt that is retried gets a line;
    // the last one is the error returned.
    if (refused) break;
    if (!options_.quiet && attempt < options_.max_start_failures)
      std::cerr << "devplace: measurer: start " << attempt << " of " << options_.max_start_failures << " failed: " << last
                << "; starting it again\n";
  }
  return invalid_input("measurer '" + options_.command + "': " + last);
}

void Measurer::fault(int64_t id, const char* kind, const std::string& message) {
  const std::string ended = child_.stop(0);
  const std::string what = std::string(kind) == "timeout" ? message : message + " (" + ended + ")";
  log_event(Json{{"event", "fault"}, {"id", id}, {"kind", kind}, {"message", what}, {"wall_s", wall_s()}}.dump());
  if (!options_.quiet)
    std::cerr << "devplace: measurer: placement " << id << ": " << what << " (fault " << stats_.faults() << "); restarting\n";
}

Evaluation Measurer::failed_evaluation() const {
  Evaluation e;
  e.failed = true;
  e.step_time_s = options_.failure_time_s;
  e.peak_memory_bytes.assign(problem_->num_devices(), 0);
  return e;
}

Result<Evaluation> Measurer::evaluate(const Placement& placement) {
  DEVPLACE_RETURN_IF_ERROR(check_placement(*problem_, placement));
  if (auto it = cache_.find(placement.device_of_op); it != cache_.end()) {
    ++stats_.cache_hits;
    ++num_evaluations_;
    log_event(Json{{"event", "cached"}, {"status", it->second.status}, {"step_time_s", it->second.evaluation.step_time_s},
                   {"same_as", it->second.id}}.dump());
    return it->second.evaluation;
  }
  int64_t id = 0;
  const char* status = nullptr;
  DEVPLACE_ASSIGN_OR_RETURN(Evaluation e, measure_now(placement, id, status));
  if (options_.cache && status != nullptr) cache_.emplace(placement.device_of_op, Cached{e, id, status});
  return e;
}

Result<Evaluation> Measurer::evaluate_fresh(const Placement& placement) {
  DEVPLACE_RETURN_IF_ERROR(check_placement(*problem_, placement));
  int64_t id = 0;
  const char* status = nullptr;
  return measure_now(placement, id, status);
}

Result<Evaluation> Measurer::measure_now(const Placement& placement, int64_t& id, const char*& status) {
  // After Ctrl-C the run is ending: nothing more is measured, and a
  // measurer that cannot start is no error.
  if (interrupt_requested()) {
    ++num_evaluations_;
    return failed_evaluation();
  }
  if (Status s = ensure_running(); !s.ok()) {
    if (!interrupt_requested()) return s.error();
    ++num_evaluations_;
    return failed_evaluation();
  }
  id = next_id_++;
  const double t0 = now_s();
  ++num_evaluations_;
  if (!child_.write_line(measure_protocol::measure(id, placement)).ok()) {
    ++stats_.exits;
    fault(id, "exit", "the measurer closed its input");
    return failed_evaluation();
  }
  std::string line;
  switch (read_answer(options_.timeout_s, "placement " + std::to_string(id), line)) {
    case ChildProcess::ReadResult::kInterrupted:
      // Ctrl-C: the measurement is abandoned, and the measurer stopped so
      // that its late answer cannot be taken for the next one's.
      child_.stop(0);
      log_event(Json{{"event", "interrupted"}, {"id", id}, {"wall_s", wall_s()}}.dump());
      return failed_evaluation();
    case ChildProcess::ReadResult::kTimeout:
      ++stats_.timeouts;
      fault(id, "timeout", "no answer within " + seconds_text(options_.timeout_s));
      return failed_evaluation();
    case ChildProcess::ReadResult::kClosed:
      ++stats_.exits;
      fault(id, "exit", "the measurer exited");
      return failed_evaluation();
    case ChildProcess::ReadResult::kTooLong:
      ++stats_.garbage;
      fault(id, "garbage", "an answer over 1 MiB");
      return failed_evaluation();
    case ChildProcess::ReadResult::kLine:
      break;
  }
  Result<measure_protocol::MeasureAnswer> answer = measure_protocol::parse_result(line, id, problem_->num_devices());
  if (!answer.ok()) {
    ++stats_.garbage;
    fault(id, "garbage", "bad answer: " + answer.error().message());
    return failed_evaluation();
  }
  const measure_protocol::MeasureAnswer& a = answer.value();
  ++stats_.measured;
  Evaluation e;
  e.peak_memory_bytes = a.peak_memory_bytes.empty() ? std::vector<int64_t>(problem_->num_devices(), 0) : a.peak_memory_bytes;
  switch (a.kind) {
    case measure_protocol::MeasureAnswer::Kind::kOk:
      e.step_time_s = a.step_time_s;
      break;
    case measure_protocol::MeasureAnswer::Kind::kOom:
      ++stats_.ooms;
      e.oom = true;
      e.step_time_s = options_.failure_time_s;
      break;
    case measure_protocol::MeasureAnswer::Kind::kError:
      ++stats_.errors;
      e.failed = true;
      e.step_time_s = options_.failure_time_s;
      break;
  }
  status = measure_protocol::kind_name(a.kind);
  Json event = {{"event", "measure"}, {"id", id}, {"status", status}, {"step_time_s", e.step_time_s}, {"wall_s", now_s() - t0}};
  if (!a.message.empty()) event["message"] = a.message;
  log_event(event.dump());
  return e;
}

std::string Measurer::summary() const {
  std::ostringstream out;
  out << "measurer '" << measurer_name_ << "': " << stats_.measured << " placements measured (" << stats_.ooms << " OOM, "
      << stats_.errors << " errors), " << stats_.cache_hits << " from the cache, " << stats_.faults() << " faults ("
      << stats_.timeouts << " timeouts, " << stats_.exits << " exits, " << stats_.garbage << " garbage, "
      << stats_.startup_faults << " failed starts), " << stats_.starts + stats_.startup_faults << " processes started ("
      << stats_.starts << " answered ready)";
  return out.str();
}

}  // namespace devplace
