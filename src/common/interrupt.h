// File: interrupt.h
// Ctrl-C for long runs. While an InterruptScope lives, SIGINT sets a flag
// instead of killing the process, so a training loop can save a checkpoint
// and return its best result; a second Ctrl-C kills the process as usual.
// Outside any scope SIGINT keeps its default action.
#pragma once

namespace devplace {

class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// True once SIGINT arrived inside a scope (until clear_interrupt()).
bool interrupt_requested();
void clear_interrupt();
// Sets the flag as SIGINT would (tests, and callers that stop a run early).
void request_interrupt();

}  // namespace devplace
