// File: progress.h
// ProgressBar: one line on stderr, redrawn in place, for runs of minutes
// (RL training): a bar, the step count, a caller's status text and the time
// left. A disabled bar prints nothing, so callers need no condition; the
// CLI enables it only when stderr is a terminal, so logs and pipes stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace devplace {

class ProgressBar {
 public:
  ProgressBar(std::string label, bool enabled);
  ~ProgressBar();  // finishes the line
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // `done` steps so far, `fraction` of the whole run done (0..1, which
  // gives the ETA; the budget may be time or steps), `status` free text
  // ("best 412.0 ms, mean 530.1 ms"). Redraws at most 10 times a second.
  void update(int64_t done, double fraction, std::string_view status);
  // Ends the line (a newline) so later output starts clean. Idempotent.
  void finish();

  // The line update() draws, without terminal control characters: exposed
  // for tests.
  static std::string render(std::string_view label, int64_t done, double fraction, double elapsed_s,
                            std::string_view status);

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace devplace
