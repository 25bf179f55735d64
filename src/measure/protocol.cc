// File: protocol.cc
#include "measure/protocol.h"

#include <cmath>

#include "common/json_reader.h"

namespace devplace::measure_protocol {

namespace {

using json::Json;

// Parses one line as a JSON object with a string "type".
Result<Json> parse_object(const std::string& line) {
  Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return invalid_input("not JSON: " + json::brief(Json(line)));
  if (!j.is_object()) return invalid_input("not a JSON object: " + json::brief(j));
  if (!j.contains("type") || !j["type"].is_string()) return invalid_input("no string \"type\" in " + json::brief(j));
  return j;
}

std::string message_of(const Json& j) {
  if (j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
  return "(no message)";
}

}  // namespace

std::string hello(const Problem& problem, const std::string& graph_source, int warmup, int repeats) {
  const Graph& g = problem.graph();
  Json ops = Json::array();
  for (const Op& op : g.ops()) ops.push_back(op.name);
  Json devices = Json::array();
  const Cluster& c = problem.cluster();
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    const Device& dev = c.device(d);
    devices.push_back({{"name", dev.name}, {"kind", std::string(device_kind_name(dev.kind))}, {"memory_bytes", dev.memory_bytes}});
  }
  Json j = {{"type", "hello"},
            {"protocol", kVersion},
            {"graph", {{"source", graph_source}, {"name", g.name()}, {"training", g.has_backward()}, {"ops", ops}}},
            {"devices", devices},
            {"warmup", warmup},
            {"repeats", repeats}};
  return j.dump();
}

std::string measure(int64_t id, const Placement& placement) {
  return Json{{"type", "measure"}, {"id", id}, {"placement", placement.device_of_op}}.dump();
}

std::string bye() { return Json{{"type", "bye"}}.dump(); }

Result<ReadyAnswer> parse_ready(const std::string& line) {
  DEVPLACE_ASSIGN_OR_RETURN(const Json j, parse_object(line));
  const std::string type = j["type"].get<std::string>();
  if (type == "ready") {
    const std::string name = j.contains("measurer") && j["measurer"].is_string() ? j["measurer"].get<std::string>() : "measurer";
    return ReadyAnswer{true, name};
  }
  if (type == "error") return ReadyAnswer{false, message_of(j)};
  return invalid_input("expected \"ready\" or \"error\" in answer to hello, got type \"" + type + "\"");
}

Result<MeasureAnswer> parse_result(const std::string& line, int64_t id, int num_devices) {
  DEVPLACE_ASSIGN_OR_RETURN(const Json j, parse_object(line));
  const std::string type = j["type"].get<std::string>();
  if (type != "result") return invalid_input("expected type \"result\", got \"" + type + "\"");
  if (!j.contains("id") || !j["id"].is_number_integer() || j["id"].get<int64_t>() != id)
    return invalid_input("expected id " + std::to_string(id) + ", got " + (j.contains("id") ? json::brief(j["id"]) : "none"));
  if (!j.contains("status") || !j["status"].is_string()) return invalid_input("no string \"status\"");
  const std::string status = j["status"].get<std::string>();
  MeasureAnswer a;
  if (status == "ok") {
    a.kind = MeasureAnswer::Kind::kOk;
    if (!j.contains("step_time_s") || !j["step_time_s"].is_number()) return invalid_input("status ok without a number \"step_time_s\"");
    a.step_time_s = j["step_time_s"].get<double>();
    if (!std::isfinite(a.step_time_s) || a.step_time_s <= 0 || a.step_time_s > kMaxStepTimeS)
      return invalid_input("step_time_s must be positive and at most a week (604800 s), got " + json::brief(j["step_time_s"]));
  } else if (status == "oom") {
    a.kind = MeasureAnswer::Kind::kOom;
    a.message = message_of(j);
    if (j.contains("device") && j["device"].is_string()) a.device = j["device"].get<std::string>();
  } else if (status == "error") {
    a.kind = MeasureAnswer::Kind::kError;
    a.message = message_of(j);
  } else {
    return invalid_input("status must be ok, oom or error, got \"" + status + "\"");
  }
  if (j.contains("peak_memory_bytes")) {
    const Json& peak = j["peak_memory_bytes"];
    if (!peak.is_array() || static_cast<int>(peak.size()) != num_devices)
      return invalid_input("peak_memory_bytes must be an array of " + std::to_string(num_devices) + " numbers");
    for (const Json& v : peak) {
      if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= kMaxPeakBytes))
        return invalid_input("peak_memory_bytes: expected numbers in [0, 2^60], got " + json::brief(v));
      a.peak_memory_bytes.push_back(static_cast<int64_t>(v.get<double>()));
    }
  }
  return a;
}

const char* kind_name(MeasureAnswer::Kind kind) {
  switch (kind) {
    case MeasureAnswer::Kind::kOk: return "ok";
    case MeasureAnswer::Kind::kOom: return "oom";
    case MeasureAnswer::Kind::kError: return "error";
  }
  return "?";
}

}  // namespace devplace::measure_protocol
