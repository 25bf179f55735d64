// File: placement_file.cc
// Reading and writing placement files (format in placement_file.h).
#include "io/placement_file.h"

#include <sstream>
#include <unordered_map>

#include "common/file_io.h"
#include "common/format.h"
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
    if (it == op_ids_.end()) return invalid_input(where + ": unknown op '" + quoted_value(op_name) + "' (graph '" + problem_.graph().name() + "')");
    std::optional<DeviceId> d = problem_.cluster().find_device(device_name);
    if (!d) {
      std::string known;
      for (const Device& dev : problem_.cluster().devices()) known += (known.empty() ? "" : ", ") + dev.name;
      return invalid_input(where + ": op '" + quoted_value(op_name) + "': unknown device '" + quoted_value(device_name) + "' (cluster '" +
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

// One CSV record: its fields and the line it starts on.
struct CsvRecord {
  std::vector<std::string> fields;
  int line = 0;
  bool comment = false;  // starts with '#' outside quotes
  bool blank = false;
};

// Reads the record that starts at text[pos] and moves pos past it. Double
// quotes enclose a field, which may then hold commas, newlines, a leading
// '#' and outer spaces ("" is a quote); unquoted fields lose their outer
// spaces and tabs.
Result<CsvRecord> next_csv_record(const std::string& text, size_t& pos, int& line, const std::string& path) {
  CsvRecord r;
  r.line = line;
  const size_t first = text.find_first_not_of(" \t", pos);
  r.comment = first != std::string::npos && text[first] == '#';
  std::string field;
  bool quoted = false, was_quoted = false;
  auto finish_field = [&] {
    if (!was_quoted) {
      const size_t b = field.find_first_not_of(" \t");
      const size_t e = field.find_last_not_of(" \t");
      field = b == std::string::npos ? "" : field.substr(b, e - b + 1);
    }
    r.fields.push_back(std::move(field));
    field.clear();
    was_quoted = false;
  };
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (quoted) {
      if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') {
        field += '"';
        ++pos;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"' && !r.comment) {
      // Text before the opening quote can only be spaces.
      if (field.find_first_not_of(" \t") != std::string::npos)
        return invalid_input(path + ":" + std::to_string(line) + ": a quote inside an unquoted field");
      field.clear();
      quoted = was_quoted = true;
    } else if (c == ',' && !r.comment) {
      finish_field();
    } else if (c == '\n') {
      ++pos;
      ++line;
      break;
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted) return invalid_input(path + ":" + std::to_string(r.line) + ": unterminated quoted field");
  finish_field();
  r.blank = r.fields.size() == 1 && r.fields[0].empty() && !was_quoted;
  return r;
}

Result<Placement> read_csv(const std::string& path, const std::string& text, const Problem& problem) {
  Assigner a(problem, path);
  size_t pos = 0;
  int line = 1;
  bool first_record = true;
  while (pos < text.size()) {
    DEVPLACE_ASSIGN_OR_RETURN(const CsvRecord r, next_csv_record(text, pos, line, path));
    if (r.blank || r.comment) continue;
    const std::string where = path + ":" + std::to_string(r.line);
    const std::vector<std::string>& f = r.fields;
    if (f.size() != 2) return invalid_input(where + ": expected 2 fields \"op,device\", got " + std::to_string(f.size()));
    const bool header = first_record && f[0] == "op" && f[1] == "device";
    first_record = false;
    if (header) continue;
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
    const std::string where = path + ": " + prefix + quoted_value(it.key());
    if (!it.value().is_string()) return invalid_input(where + ": expected a device name, got " + json::brief(it.value()));
    DEVPLACE_RETURN_IF_ERROR(a.assign(it.key(), it.value().get<std::string>(), where));
  }
  return a.finish();
}

// Quoted when the reader would otherwise change it: a comma, quote or line
// break inside, outer spaces, or a leading '#'.
std::string csv_field(const std::string& s) {
  const bool plain = s.find_first_of(",\"\n\r") == std::string::npos && !s.empty() && s[0] != '#' && s[0] != ' ' &&
                     s[0] != '\t' && s.back() != ' ' && s.back() != '\t';
  if (plain) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

Result<Placement> read_placement_file(const std::string& path, const Problem& problem) {
  DEVPLACE_ASSIGN_OR_RETURN(std::string text, read_text_file(path));
  // Spreadsheets start their CSV with a UTF-8 byte-order mark.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
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
