// File: progress.cc
// The stderr progress bar (see progress.h).
#include "common/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace devplace {

namespace {

constexpr int kBarWidth = 24;

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  }
  return buf;
}

}  // namespace

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

std::string ProgressBar::render(std::string_view label, int64_t done, double fraction, double elapsed_s,
                                std::string_view status) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  const int filled = static_cast<int>(std::lround(fraction * kBarWidth));
  std::string line(label);
  line += " [";
  line.append(static_cast<size_t>(filled), '#');
  line.append(static_cast<size_t>(kBarWidth - filled), '.');
  line += "] ";
  line += std::to_string(done);
  char pct[16];
  std::snprintf(pct, sizeof pct, " %3d%%", static_cast<int>(std::lround(100 * fraction)));
  line += pct;
  if (!status.empty()) {
    line += "  ";
    line += status;
  }
  line += "  ETA ";
  line += fraction > 0 ? format_duration(elapsed_s * (1 - fraction) / fraction) : std::string("?");
  return line;
}

void ProgressBar::update(int64_t done, double fraction, std::string_view status) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && fraction < 1.0 && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // \r returns to the line start; \033[K clears what a longer line left.
  std::fprintf(stderr, "\r%s\033[K", render(label_, done, fraction, elapsed, status).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!enabled_ || !drawn_) return;
  std::fputc('\n', stderr);
  std::fflush(stderr);
  drawn_ = false;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace devplace
