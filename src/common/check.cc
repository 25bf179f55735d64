// File: check.cc
// Failure paths for DEVPLACE_CHECK and for reading the value of a failed Result.
#include "common/check.h"

#include <cstdio>
#include <cstdlib>

#include "common/status.h"

namespace devplace {

namespace internal {
void check_failed(const char* file, int line, const char* condition) {
  std::fprintf(stderr, "devplace: internal error: check failed at %s:%d: %s\n", file, line, condition);
  std::fflush(stderr);
  std::abort();
}
}  // namespace internal

void fail_unchecked_result_access(const Error& error) {
  std::fprintf(stderr, "devplace: internal error: value() of a failed Result: %s\n", error.message().c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace devplace
