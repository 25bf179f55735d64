// File: event_queue.cc
// The sorted window of EventQueue (see event_queue.h).
#include "sim/event_queue.h"

#include <algorithm>
#include <utility>

namespace devplace {

void EventQueue::make_room() {
  const size_t n = tail_ - head_;
  const auto first = static_cast<std::ptrdiff_t>(head_), last = static_cast<std::ptrdiff_t>(tail_);
  if (n < time_bits_.size() / 2) {
    std::copy(time_bits_.begin() + first, time_bits_.begin() + last, time_bits_.begin());
    std::copy(tie_breaks_.begin() + first, tie_breaks_.begin() + last, tie_breaks_.begin());
  } else {
    std::vector<uint64_t> time_bits(std::max<size_t>(256, 2 * time_bits_.size()));
    std::vector<uint64_t> tie_breaks(time_bits.size());
    std::copy(time_bits_.begin() + first, time_bits_.begin() + last, time_bits.begin());
    std::copy(tie_breaks_.begin() + first, tie_breaks_.begin() + last, tie_breaks.begin());
    time_bits_ = std::move(time_bits);
    tie_breaks_ = std::move(tie_breaks);
  }
  head_ = 0;
  tail_ = n;
}

size_t EventQueue::open_by_bisection(size_t i, Key key) {
  size_t lo = head_, hi = i - 1;  // the first entry later than key is in [lo, hi]
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (make_key(time_bits_[mid], tie_breaks_[mid]) > key) hi = mid;
    else lo = mid + 1;
  }
  const auto from = static_cast<std::ptrdiff_t>(lo), to = static_cast<std::ptrdiff_t>(i);
  std::move_backward(time_bits_.begin() + from, time_bits_.begin() + to, time_bits_.begin() + to + 1);
  std::move_backward(tie_breaks_.begin() + from, tie_breaks_.begin() + to, tie_breaks_.begin() + to + 1);
  return lo;
}

}  // namespace devplace
