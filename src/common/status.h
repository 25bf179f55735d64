// File: status.h
// Error and Result<T>: how library code reports failure without exceptions.
//
// Bad user input (a malformed file, an unknown device, a cycle) is an Error with
// code kInvalidInput or kNotFound and a one-line message that names the file and
// the place in it, e.g.
//   cluster.json: devices[2].memory_bytes: expected a positive integer, got -1
// Our own broken invariants are DEVPLACE_CHECK failures (check.h), never Errors.
//
//   Result<Graph> g = read_native_json(path);
//   if (!g.ok()) return g.error();
//   use(g.value());
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace devplace {

enum class ErrorCode {
  kInvalidInput,  // the user's input is wrong: exit code 2
  kNotFound,      // a named thing (file, preset, op, device) does not exist: exit code 2
  kNotApplicable, // the method is not defined for this input (expert on a graph without layers): exit code 2
  kInternal,      // something failed that is not the user's fault: exit code 1
};

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  bool is_user_error() const { return code_ != ErrorCode::kInternal; }

  // Returns a copy whose message is "prefix: message" (adds the file or place).
  Error with_prefix(const std::string& prefix) const { return Error(code_, prefix + ": " + message_); }

 private:
  ErrorCode code_;
  std::string message_;
};

inline Error invalid_input(std::string message) { return Error(ErrorCode::kInvalidInput, std::move(message)); }
inline Error not_found(std::string message) { return Error(ErrorCode::kNotFound, std::move(message)); }
inline Error not_applicable(std::string message) { return Error(ErrorCode::kNotApplicable, std::move(message)); }
inline Error internal_error(std::string message) { return Error(ErrorCode::kInternal, std::move(message)); }

// A value or an Error. Accessing value() of an error Result is a bug (checked).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return data_.index() == 0; }
  T& value() & { check_ok(); return std::get<0>(data_); }
  const T& value() const& { check_ok(); return std::get<0>(data_); }
  T&& value() && { check_ok(); return std::get<0>(std::move(data_)); }
  const Error& error() const { return std::get<1>(data_); }

 private:
  void check_ok() const;
  std::variant<T, Error> data_;
};

// Result<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  static Status ok_status() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

[[noreturn]] void fail_unchecked_result_access(const Error& error);

template <typename T>
void Result<T>::check_ok() const {
  if (!ok()) fail_unchecked_result_access(std::get<1>(data_));
}

}  // namespace devplace

// Propagates an error from an expression yielding Status or Result<T>.
#define DEVPLACE_RETURN_IF_ERROR(expr)          \
  do {                                          \
    auto devplace_status_ = (expr);             \
    if (!devplace_status_.ok()) return devplace_status_.error(); \
  } while (0)

#define DEVPLACE_CONCAT_INNER_(a, b) a##b
#define DEVPLACE_CONCAT_(a, b) DEVPLACE_CONCAT_INNER_(a, b)

// DEVPLACE_ASSIGN_OR_RETURN(auto graph, read_graph(path));
#define DEVPLACE_ASSIGN_OR_RETURN(lhs, expr) \
  DEVPLACE_ASSIGN_OR_RETURN_IMPL_(DEVPLACE_CONCAT_(devplace_result_, __LINE__), lhs, expr)
#define DEVPLACE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return tmp.error();                    \
  lhs = std::move(tmp).value()
