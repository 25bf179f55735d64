// File: json_reader.h
// Reading JSON input files with errors a user can act on. Parse errors carry
// "file:line:col"; field errors carry the JSON path of the field, e.g.
//   devices[2].memory_bytes: expected a positive integer, got -1
// (readers prefix the file name). Wraps nlohmann::json; the rest of devplace
// sees only these functions and the Json alias.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace devplace::json {

using Json = nlohmann::json;

// The deepest nesting of arrays and objects accepted (devplace's own
// formats nest 4 levels; ONNX-derived and PipeDream JSON a few more).
inline constexpr int kMaxDepth = 256;

// Reads and parses a whole file (bounded as file_io.h reads text). Errors: "PATH: cannot read file" (kNotFound),
// "PATH:LINE:COL: malformed JSON: DETAIL", "PATH:LINE:COL: JSON nested
// deeper than 256 levels" and "PATH:LINE:COL: duplicate key "name" in one
// object" (kInvalidInput).
Result<Json> parse_file(const std::string& path);
// Parses text; `source` names it in errors (a path, or "<stdin>").
Result<Json> parse_text(std::string_view text, const std::string& source);

// The JSON path of a member or an element: join("ops[3]", "name") = "ops[3].name".
std::string join(const std::string& where, std::string_view key);
std::string index(const std::string& where, size_t i);

// Each accessor reads obj[key] and reports errors under where.key.
Status require_object(const Json& value, const std::string& where);
Status require_array(const Json& value, const std::string& where);
// Fails on a member not in `known` (catches typos that would silently use a default).
Status check_known_fields(const Json& obj, std::initializer_list<std::string_view> known, const std::string& where);

Result<std::string> get_string(const Json& obj, std::string_view key, const std::string& where);
Result<std::string> get_string_or(const Json& obj, std::string_view key, const std::string& where,
                                  std::string fallback);
// Numbers: finite, >= 0 (non-negative) or > 0 (positive).
Result<double> get_nonnegative(const Json& obj, std::string_view key, const std::string& where);
Result<double> get_nonnegative_or(const Json& obj, std::string_view key, const std::string& where, double fallback);
Result<double> get_positive(const Json& obj, std::string_view key, const std::string& where);
Result<int64_t> get_nonnegative_int(const Json& obj, std::string_view key, const std::string& where);
Result<int64_t> get_nonnegative_int_or(const Json& obj, std::string_view key, const std::string& where,
                                       int64_t fallback);
Result<int64_t> get_positive_int(const Json& obj, std::string_view key, const std::string& where);
Result<int64_t> get_int_or(const Json& obj, std::string_view key, const std::string& where, int64_t fallback);

// A short rendering of a value for messages (at most ~40 characters).
std::string brief(const Json& value);

}  // namespace devplace::json
