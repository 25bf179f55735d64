// File: tf_costs.cc
// Measured op times from TensorFlow's run-time records (see internal/tf_costs.h).
#include "io/internal/tf_costs.h"

#include <optional>
#include <vector>

#include "common/file_io.h"
#include "common/format.h"
#include "io/internal/tf_device_spec.h"
#include "io/internal/tf_proto_io.h"
#include "io/proto/tf_costs.pb.h"

namespace devplace {

namespace {

// Longest time one record may hold: a day, in microseconds.
constexpr double kMaxRecordMicros = 86400e6;

struct Record {
  std::string name;
  DeviceKind kind;
  double seconds;
  bool stream = false;  // from a GPU tracer's "/stream:all"
};

// One reading of the file: its records, or the first problem in them.
struct Reading {
  std::string kind;
  std::vector<Record> records;
  int unknown_devices = 0;
  std::optional<Error> error;
  int matched = 0;  // distinct graph nodes named
};

Reading reading(std::string kind) {
  Reading r;
  r.kind = std::move(kind);
  return r;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The device kind of a record's device, or nullopt (counted as unknown).
std::optional<DeviceKind> kind_of(std::string_view device) {
  Result<TfDeviceSpec> spec = parse_tf_device_spec(device);
  if (!spec.ok() || !spec.value().kind) return std::nullopt;
  return spec.value().kind;
}

void add_step_stats(const tf::StepStats& stats, const std::string& source, Reading& r) {
  for (const tf::DeviceStepStats& dev : stats.dev_stats()) {
    std::string_view device = dev.device();
    bool stream = false;
    if (ends_with(device, "/stream:all")) {
      device.remove_suffix(std::string_view("/stream:all").size());
      stream = true;
    } else if (device.find("/stream:") != std::string_view::npos || ends_with(device, "/memcpy")) {
      continue;  // repeats of the stream:all records
    }
    const std::optional<DeviceKind> kind = kind_of(device);
    for (const tf::NodeExecStats& n : dev.node_stats()) {
      if (!kind) {
        ++r.unknown_devices;
        continue;
      }
      const bool nanos = n.op_start_rel_nanos() != 0 || n.op_end_rel_nanos() != 0;
      const double start = nanos ? static_cast<double>(n.op_start_rel_nanos()) * 1e-3 : static_cast<double>(n.op_start_rel_micros());
      const double end = nanos ? static_cast<double>(n.op_end_rel_nanos()) * 1e-3 : static_cast<double>(n.op_end_rel_micros());
      const double micros = end - start;
      if (!(micros >= 0 && micros <= kMaxRecordMicros)) {
        if (!r.error)
          r.error = invalid_input(source + ": node_stats of '" + quoted_value(n.node_name()) + "' on '" + quoted_value(dev.device()) +
                                  "': op_end_rel - op_start_rel is " + std::to_string(micros) + " us (expected 0 to a day)");
        continue;
      }
      // The GPU tracer names kernels "node:OpType".
      std::string name = n.node_name();
      if (stream && name.find(':') != std::string::npos) name = name.substr(0, name.find(':'));
      r.records.push_back({name, *kind, micros * 1e-6, stream});
    }
  }
}

void add_cost_graph(const tf::CostGraphDef& graph, const std::string& source, Reading& r) {
  for (const tf::CostGraphDef::Node& n : graph.node()) {
    const std::optional<DeviceKind> kind = kind_of(n.device());
    if (!kind) {
      ++r.unknown_devices;
      continue;
    }
    const double micros = static_cast<double>(n.compute_cost() != 0 ? n.compute_cost() : n.compute_time());
    if (!(micros >= 0 && micros <= kMaxRecordMicros)) {
      if (!r.error)
        r.error = invalid_input(source + ": cost_graph node '" + quoted_value(n.name()) + "': compute_cost is " +
                                std::to_string(micros) + " us (expected 0 to a day)");
      continue;
    }
    r.records.push_back({n.name(), *kind, micros * 1e-6, false});
  }
}

void count_matches(Reading& r, const std::unordered_set<std::string>& nodes) {
  std::unordered_set<std::string> seen;
  for (const Record& rec : r.records) {
    if (nodes.count(rec.name) && seen.insert(rec.name).second) ++r.matched;
  }
}

}  // namespace

Result<TfMeasuredCosts> read_tf_costs(const std::string& path, const std::unordered_set<std::string>& nodes,
                                      const std::string& graph_source) {
  DEVPLACE_ASSIGN_OR_RETURN(const std::string bytes, read_binary_file(path, kMaxTextFileBytes));
  const TfProtoSyntax syntax = tf_proto_syntax(path);
  const std::string what = "TensorFlow RunMetadata, StepStats or CostGraphDef";
  std::vector<Reading> readings;
  std::optional<Error> first_error;
  auto parse = [&](google::protobuf::Message* m) {
    // Text files may hold fields devplace does not read (memory, outputs, partition graphs).
    Status s = parse_tf_proto(bytes, syntax, path, what, /*skip_unknown_text_fields=*/true, m);
    if (!s.ok() && !first_error) first_error = s.error();
    return s.ok();
  };
  {
    tf::RunMetadata m;
    if (parse(&m)) {
      Reading steps = reading("RunMetadata (step_stats)");
      add_step_stats(m.step_stats(), path, steps);
      if (!steps.records.empty()) {
        readings.push_back(std::move(steps));
      } else {
        Reading costs = reading("RunMetadata (cost_graph)");
        add_cost_graph(m.cost_graph(), path, costs);
        readings.push_back(std::move(costs));
      }
    }
  }
  {
    tf::StepStats m;
    if (parse(&m)) {
      Reading r = reading("StepStats");
      add_step_stats(m, path, r);
      readings.push_back(std::move(r));
    }
  }
  {
    tf::CostGraphDef m;
    if (parse(&m)) {
      Reading r = reading("CostGraphDef");
      add_cost_graph(m, path, r);
      readings.push_back(std::move(r));
    }
  }
  if (readings.empty()) {
    if (syntax == TfProtoSyntax::kText && first_error) return *first_error;
    return invalid_input(path + ": not a " + what + " (the protobuf does not parse as any of them: truncated or corrupted file?)");
  }
  Reading* best = nullptr;
  size_t most_records = 0;
  for (Reading& r : readings) {
    count_matches(r, nodes);
    if (best == nullptr || r.matched > best->matched) best = &r;
    most_records = std::max(most_records, r.records.size());
  }
  if (best->matched == 0) {
    if (most_records == 0) return invalid_input(path + ": holds no timed node (not a " + what + ", or an empty one)");
    std::string example;
    for (const Reading& r : readings) {
      if (example.empty() && !r.records.empty()) example = r.records.front().name;
    }
    return invalid_input(path + ": none of its timed nodes is a node of " + graph_source + " (e.g. '" + quoted_value(example) +
                         "'): the costs of another graph?");
  }
  if (best->error) return *best->error;

  TfMeasuredCosts costs;
  costs.kind = best->kind;
  costs.unknown_devices = best->unknown_devices;
  // Per node and kind: the stream records if there are any, else the others; each summed.
  std::unordered_map<std::string, std::array<double, kNumDeviceKinds>> plain, stream;
  std::unordered_set<std::string> unmatched;
  for (const Record& rec : best->records) {
    if (!nodes.count(rec.name)) {
      if (unmatched.insert(rec.name).second && costs.first_unmatched.empty()) costs.first_unmatched = rec.name;
      continue;
    }
    auto& table = rec.stream ? stream : plain;
    auto [it, inserted] = table.try_emplace(rec.name, std::array<double, kNumDeviceKinds>{-1.0, -1.0});
    double& s = it->second[static_cast<int>(rec.kind)];
    s = std::max(s, 0.0) + rec.seconds;
  }
  costs.unmatched_nodes = static_cast<int>(unmatched.size());
  costs.seconds = std::move(plain);
  for (const auto& [name, kinds] : stream) {
    auto [it, inserted] = costs.seconds.try_emplace(name, std::array<double, kNumDeviceKinds>{-1.0, -1.0});
    for (int k = 0; k < kNumDeviceKinds; ++k) {
      if (kinds[k] >= 0) it->second[k] = kinds[k];
    }
  }
  return costs;
}

}  // namespace devplace
