// File: interrupt.cc
// The SIGINT flag (see interrupt.h).
#include "common/interrupt.h"

#include <atomic>
#include <csignal>

namespace devplace {

namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_scopes{0};

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  // The next Ctrl-C kills: the user may not want to wait for a checkpoint.
  std::signal(SIGINT, SIG_DFL);
}

}  // namespace

InterruptScope::InterruptScope() {
  if (g_scopes.fetch_add(1) == 0) std::signal(SIGINT, on_sigint);
}

InterruptScope::~InterruptScope() {
  if (g_scopes.fetch_sub(1) == 1) std::signal(SIGINT, SIG_DFL);
}

bool interrupt_requested() { return g_interrupted.load(); }
void clear_interrupt() { g_interrupted.store(false); }
void request_interrupt() { g_interrupted.store(true); }

}  // namespace devplace
