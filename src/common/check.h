// File: check.h
// DEVPLACE_CHECK guards devplace's own invariants. A failed check is a bug in
// devplace, never a consequence of user input (input is validated and reported
// as an Error, see status.h). It prints the source location and aborts.
#pragma once

namespace devplace::internal {
[[noreturn]] void check_failed(const char* file, int line, const char* condition);
}  // namespace devplace::internal

#define DEVPLACE_CHECK(condition)                                               \
  do {                                                                          \
    if (!(condition)) ::devplace::internal::check_failed(__FILE__, __LINE__, #condition); \
  } while (0)
