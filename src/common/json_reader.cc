// File: json_reader.cc
// JSON parsing with located errors, and checked field accessors.
#include "common/json_reader.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/file_io.h"
#include "common/format.h"

namespace devplace::json {

namespace {

// Line and column (1-based) of byte offset `pos` in `text`.
std::pair<size_t, size_t> line_col(std::string_view text, size_t pos) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

Result<const Json*> member(const Json& obj, std::string_view key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) return invalid_input(join(where, key) + ": missing required field");
  return &*it;
}

bool is_integer(const Json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18;
}

int64_t as_int(const Json& v) {
  if (v.is_number_unsigned()) return static_cast<int64_t>(v.get<uint64_t>());
  if (v.is_number_integer()) return v.get<int64_t>();
  return static_cast<int64_t>(v.get<double>());
}

// The field's path is built only for an error: reading a large file calls these millions of times.
Result<double> number_at(const Json& v, const std::string& where, std::string_view key, bool positive) {
  const char* expected = positive ? "expected a positive number" : "expected a non-negative number";
  if (v.is_number()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d >= 0 && !(positive && d == 0)) return d;
  }
  return invalid_input(join(where, key) + ": " + expected + ", got " + brief(v));
}

Result<int64_t> int_at(const Json& v, const std::string& where, std::string_view key, int64_t min_value, const char* expected) {
  if (is_integer(v) && !(v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))) {
    const int64_t i = as_int(v);
    if (i >= min_value) return i;
  }
  return invalid_input(join(where, key) + ": " + expected + ", got " + brief(v));
}

// What the structural scan found wrong, before the parser runs.
struct ScanProblem {
  size_t at = std::string_view::npos;  // byte offset; npos: none
  std::string what;
};

// One linear pass that skips strings and finds, before the parser sees
// them, nesting deeper than `max_depth` arrays and objects (the library's
// dump() and destructor recurse) and a key repeated in one object (the
// library would keep the last silently). Keys are compared as written.
ScanProblem scan_structure(std::string_view text, int max_depth) {
  struct Level {
    bool object = false;
    std::vector<std::string_view> keys;        // while few
    std::unordered_set<std::string_view> many;  // past kFew
  };
  constexpr size_t kFew = 16;
  // levels[0, depth) are open; those above are kept for reuse, so that a
  // large file costs no allocation per object.
  std::vector<Level> levels;
  size_t depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const size_t start = i + 1;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      if (depth == 0 || !levels[depth - 1].object) continue;
      size_t j = i + 1;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\n' || text[j] == '\r' || text[j] == '\t')) ++j;
      if (j >= text.size() || text[j] != ':') continue;
      const std::string_view key = text.substr(start, std::min(i, text.size()) - start);
      Level& level = levels[depth - 1];
      bool seen = false;
      if (level.many.empty()) {
        seen = std::find(level.keys.begin(), level.keys.end(), key) != level.keys.end();
        level.keys.push_back(key);
        if (level.keys.size() > kFew) level.many.insert(level.keys.begin(), level.keys.end());
      } else {
        seen = !level.many.insert(key).second;
      }
      if (seen) return {start - 1, "duplicate key \"" + quoted_value(key, 60) + "\" in one object"};
    } else if (c == '[' || c == '{') {
      if (static_cast<int>(depth) >= max_depth) return {i, "JSON nested deeper than " + std::to_string(max_depth) + " levels"};
      if (depth == levels.size()) levels.emplace_back();
      Level& level = levels[depth++];
      level.object = c == '{';
      level.keys.clear();
      if (!level.many.empty()) level.many.clear();
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return {};
}

}  // namespace

Result<Json> parse_text(std::string_view text, const std::string& source) {
  if (const ScanProblem problem = scan_structure(text, kMaxDepth); problem.at != std::string_view::npos) {
    auto [line, col] = line_col(text, problem.at);
    return invalid_input(source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + problem.what);
  }
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const size_t pos = e.byte > 0 ? e.byte - 1 : 0;
    auto [line, col] = line_col(text, pos);
    std::string detail = e.what();
    // nlohmann's message reads "[json.exception.parse_error.101] parse error at line 1, column 5: ...";
    // keep only what follows the last ": " of its location prefix.
    const size_t cut = detail.find("error: ");
    if (cut != std::string::npos) detail = detail.substr(cut + 7);
    else if (detail.rfind(": ") != std::string::npos) detail = detail.substr(detail.rfind(": ") + 2);
    return invalid_input(source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": malformed JSON: " + detail);
  } catch (const Json::exception& e) {
    // Valid syntax the library cannot hold, e.g. a number beyond double range (1e999).
    std::string detail = e.what();
    if (const size_t cut = detail.find("] "); cut != std::string::npos) detail = detail.substr(cut + 2);
    return invalid_input(source + ": malformed JSON: " + detail);
  }
}

Result<Json> parse_file(const std::string& path) {
  DEVPLACE_ASSIGN_OR_RETURN(std::string text, read_text_file(path));
  return parse_text(text, path);
}

std::string join(const std::string& where, std::string_view key) {
  if (where.empty()) return std::string(key);
  return where + "." + std::string(key);
}

std::string index(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

std::string brief(const Json& value) {
  // A large array or object is not dumped whole to be cut.
  if (value.is_array() && value.size() > 8) return "an array of " + std::to_string(value.size()) + " items";
  if (value.is_object() && value.size() > 8) return "an object of " + std::to_string(value.size()) + " members";
  if (value.is_string() && value.get_ref<const std::string&>().size() > 64)
    return Json(value.get_ref<const std::string&>().substr(0, 36)).dump(-1, ' ', false, Json::error_handler_t::replace) + "... (" +
           std::to_string(value.get_ref<const std::string&>().size()) + " characters)";
  std::string s = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

Status require_object(const Json& value, const std::string& where) {
  if (!value.is_object()) return invalid_input((where.empty() ? "top level" : where) + ": expected an object, got " + brief(value));
  return Status::ok_status();
}

Status require_array(const Json& value, const std::string& where) {
  if (!value.is_array()) return invalid_input(where + ": expected an array, got " + brief(value));
  return Status::ok_status();
}

Status check_known_fields(const Json& obj, std::initializer_list<std::string_view> known, const std::string& where) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool found = false;
    for (std::string_view k : known) found = found || k == it.key();
    if (found) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    return invalid_input(join(where, it.key()) + ": unknown field (known: " + list + ")");
  }
  return Status::ok_status();
}

Result<std::string> get_string(const Json& obj, std::string_view key, const std::string& where) {
  DEVPLACE_ASSIGN_OR_RETURN(const Json* v, member(obj, key, where));
  if (!v->is_string() || v->get_ref<const std::string&>().empty())
    return invalid_input(join(where, key) + ": expected a non-empty string, got " + brief(*v));
  return v->get<std::string>();
}

Result<std::string> get_string_or(const Json& obj, std::string_view key, const std::string& where,
                                  std::string fallback) {
  if (!obj.contains(key)) return fallback;
  const Json& v = obj.at(key);
  if (!v.is_string()) return invalid_input(join(where, key) + ": expected a string, got " + brief(v));
  return v.get<std::string>();
}

Result<double> get_nonnegative(const Json& obj, std::string_view key, const std::string& where) {
  DEVPLACE_ASSIGN_OR_RETURN(const Json* v, member(obj, key, where));
  return number_at(*v, where, key, false);
}

Result<double> get_nonnegative_or(const Json& obj, std::string_view key, const std::string& where, double fallback) {
  if (!obj.contains(key)) return fallback;
  return number_at(obj.at(key), where, key, false);
}

Result<double> get_positive(const Json& obj, std::string_view key, const std::string& where) {
  DEVPLACE_ASSIGN_OR_RETURN(const Json* v, member(obj, key, where));
  return number_at(*v, where, key, true);
}

Result<int64_t> get_nonnegative_int(const Json& obj, std::string_view key, const std::string& where) {
  DEVPLACE_ASSIGN_OR_RETURN(const Json* v, member(obj, key, where));
  return int_at(*v, where, key, 0, "expected a non-negative integer");
}

Result<int64_t> get_nonnegative_int_or(const Json& obj, std::string_view key, const std::string& where,
                                       int64_t fallback) {
  if (!obj.contains(key)) return fallback;
  return int_at(obj.at(key), where, key, 0, "expected a non-negative integer");
}

Result<int64_t> get_positive_int(const Json& obj, std::string_view key, const std::string& where) {
  DEVPLACE_ASSIGN_OR_RETURN(const Json* v, member(obj, key, where));
  return int_at(*v, where, key, 1, "expected a positive integer");
}

Result<int64_t> get_int_or(const Json& obj, std::string_view key, const std::string& where, int64_t fallback) {
  if (!obj.contains(key)) return fallback;
  return int_at(obj.at(key), where, key, INT64_MIN, "expected an integer");
}

}  // namespace devplace::json
