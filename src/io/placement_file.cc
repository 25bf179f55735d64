// File: placement_file.cc
// Reading and writing placement files (format in placement_file.h).
#include "io/placement_file.h"

#include <sstream>
#include <unordered_map>

#include "common/file_io.h"
#include "common/json_reader.h"

namespace devplace {

using json::Json;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Collects named assignments, then spreads them over co-location groups.
class Assigner {
 public:
  Assigner(const Problem& problem, const std::string& path) : problem_(problem), path_(path) {
    const Graph& g = problem.graph();
    for (OpId id = 0; id < g.num_ops(); ++id) op_ids_.emplace(g.op(id).name, id);
    group_device_.assign(g.num_groups(), kNoId);
    group_source_.resize(g.num_groups());
  }

  // `where` is "path:LINE" or "path: placement.OP".
  Status assign(const std::string& op_name, const std::string& device_name, const std::string& where) {
    auto it = op_ids_.find(op_name);
    if (it == op_ids_.end()) return invalid_input(where + ": unknown op '" + op_name + "' (graph '" + problem_.graph().name() + "')");
    std::optional<DeviceId> d = problem_.cluster().find_device(device_name);
    if (!d) {
      std::string known;
      for (const Device& dev : problem_.cluster().devices()) known += (known.empty() ? "" : ", ") + dev.name;
      return invalid_input(where + ": op '" + op_name + "': unknown device '" + device_name + "' (cluster '" +
                           problem_.cluster().name() + "' has " + known + ")");
    }
    const GroupId g = problem_.graph().group_of(it->second);
    if (group_device_[g] != kNoId && group_device_[g] != *d) {
      return invalid_input(where + ": op '" + op_name + "' on '" + device_name + "', but its co-location group '" +
                           problem_.graph().group_name(g) + "' was put on '" + problem_.cluster().device(group_device_[g]).name +
                           "' at " + group_source_[g]);
    }
    group_device_[g] = *d;
    group_source_[g] = where;
    return Status::ok_status();
  }

  Result<Placement> finish() const {
    const Graph& g = problem_.graph();
    for (GroupId grp = 0; grp < g.num_groups(); ++grp) {
      if (group_device_[grp] == kNoId) {
        const std::string& first = g.op(g.group_ops(grp).front()).name;
        return invalid_input(path_ + ": op '" + first + "' has no device (neither it nor any op of its co-location group '" +
                             g.group_name(grp) + "' is in the file)");
      }
    }
    Placement p = placement_from_groups(g, group_device_);
    Status s = check_placement(problem_, p);
    if (!s.ok()) return s.error().with_prefix(path_);
    return p;
  }

 private:
  const Problem& problem_;
  std::string path_;
  std::unordered_map<std::string, OpId> op_ids_;
  std::vector<DeviceId> group_device_;
  std::vector<std::string> group_source_;
};

// Splits one CSV line into fields; double quotes may enclose a field ("" is a quote).
Result<std::vector<std::string>> split_csv(const std::string& line, const std::string& where) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  if (quoted) return invalid_input(where + ": unterminated quoted field");
  for (std::string& f : fields) {
    const size_t b = f.find_first_not_of(" \t");
    const size_t e = f.find_last_not_of(" \t");
    f = b == std::string::npos ? "" : f.substr(b, e - b + 1);
  }
  return fields;
}

Result<Placement> read_csv(const std::string& path, const std::string& text, const Problem& problem) {
  Assigner a(problem, path);
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = path + ":" + std::to_string(line_no);
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
    DEVPLACE_ASSIGN_OR_RETURN(std::vector<std::string> f, split_csv(line, where));
    if (f.size() != 2) return invalid_input(where + ": expected 2 fields \"op,device\", got " + std::to_string(f.size()));
    if (line_no == 1 && f[0] == "op" && f[1] == "device") continue;
    DEVPLACE_RETURN_IF_ERROR(a.assign(f[0], f[1], where));
  }
  return a.finish();
}

Result<Placement> read_json(const std::string& path, const std::string& text, const Problem& problem) {
  DEVPLACE_ASSIGN_OR_RETURN(Json doc, json::parse_text(text, path));
  if (!doc.is_object()) return invalid_input(path + ": expected a JSON object mapping op names to device names");
  const Json* map = &doc;
  std::string prefix;
  if (doc.contains("format")) {
    if (doc.at("format") != "devplace-placement")
      return invalid_input(path + ": format: expected \"devplace-placement\", got " + json::brief(doc.at("format")));
    if (!doc.contains("placement") || !doc.at("placement").is_object())
      return invalid_input(path + ": placement: expected an object mapping op names to device names");
    map = &doc.at("placement");
    prefix = "placement.";
  }
  Assigner a(problem, path);
  for (auto it = map->begin(); it != map->end(); ++it) {
    const std::string where = path + ": " + prefix + it.key();
    if (!it.value().is_string()) return invalid_input(where + ": expected a device name, got " + json::brief(it.value()));
    DEVPLACE_RETURN_IF_ERROR(a.assign(it.key(), it.value().get<std::string>(), where));
  }
  return a.finish();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

Result<Placement> read_placement_file(const std::string& path, const Problem& problem) {
  DEVPLACE_ASSIGN_OR_RETURN(const std::string text, read_text_file(path));
  const size_t first = text.find_first_not_of(" \t\r\n");
  const bool looks_json = first != std::string::npos && (text[first] == '{' || text[first] == '[');
  if (ends_with(path, ".csv") || (!ends_with(path, ".json") && !looks_json)) return read_csv(path, text, problem);
  return read_json(path, text, problem);
}

Status write_placement_json(const std::string& path, const Problem& problem, const Placement& placement) {
  Json map = Json::object();
  for (OpId id = 0; id < problem.num_ops(); ++id)
    map[problem.graph().op(id).name] = problem.cluster().device(placement.device_of_op[id]).name;
  Json doc = {{"format", "devplace-placement"},
              {"version", 1},
              {"graph", problem.graph().name()},
              {"cluster", problem.cluster().name()},
              {"placement", std::move(map)}};
  return write_text_file(path, doc.dump(1) + "\n");
}

Status write_placement_csv(const std::string& path, const Problem& problem, const Placement& placement) {
  std::string text = "op,device\n";
  for (OpId id = 0; id < problem.num_ops(); ++id)
    text += csv_field(problem.graph().op(id).name) + "," + csv_field(problem.cluster().device(placement.device_of_op[id]).name) + "\n";
  return write_text_file(path, text);
}

Status write_placement_file(const std::string& path, const Problem& problem, const Placement& placement) {
  if (ends_with(path, ".csv")) return write_placement_csv(path, problem, placement);
  return write_placement_json(path, problem, placement);
}

}  // namespace devplace
