// File: event_queue.h
// EventQueue: the simulator's queue of timed events, earliest first.
//
// Keys are (time, tie-break) pairs, all distinct (the simulator's tie-break
// holds an issue number). Times are finite and never negative, and a
// non-negative double orders as its bit pattern, so a key is the unsigned
// 128-bit integer (time bits << 64) | tie-break and "earlier" is one
// integer comparison: a compare and a subtract-with-borrow, no branch on
// equal times.
//
// The keys are kept sorted in a window [head, tail) of two arrays of
// 64-bit words (one load or store per word: a 16-byte load of an entry
// written as two words stalls on store forwarding) and read from the front,
// so a pop is O(1). A new event is nearly always later than most of those
// queued (an op's end, a transfer's arrival), so push finds its place from
// the back, usually in a few steps; a queue of more than 16 entries is
// bisected instead and the later entries moved at once, so a queue of thousands of
// transfers still costs O(log q) comparisons per push. The window slides to
// the front when it reaches the end of the arrays, and the arrays double
// when it fills more than half of them: a queue of q entries uses O(q)
// memory, whatever the number of events pushed, and stays in L1 when q is
// small. A binary heap, the first design, paid its log q dependent levels
// on every pop (docs/simulator.md, "Speed").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace devplace {

class EventQueue {
 public:
  struct Entry {
    double time;
    uint64_t tie_break;
  };

  void clear() { head_ = tail_ = 0; }
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  // time must be finite and >= 0; (time, tie_break) must differ from every
  // key queued. Inline: the simulator pushes once or twice per op.
  void push(double time, uint64_t tie_break) {
    if (tail_ == time_bits_.size()) make_room();
    const uint64_t time_bits = bits_of(time);
    const Key key = make_key(time_bits, tie_break);
    // The hole at i moves down past the later entries: step by step in a
    // queue of at most kLinearSteps entries, else by bisection (when the
    // last entry is later).
    size_t i = tail_;
    if (tail_ - head_ <= kLinearSteps) {
      while (i > head_ && make_key(time_bits_[i - 1], tie_breaks_[i - 1]) > key) {
        time_bits_[i] = time_bits_[i - 1];
        tie_breaks_[i] = tie_breaks_[i - 1];
        --i;
      }
    } else if (make_key(time_bits_[i - 1], tie_breaks_[i - 1]) > key) {
      i = open_by_bisection(i, key);
    }
    time_bits_[i] = time_bits;
    tie_breaks_[i] = tie_break;
    ++tail_;
  }
  // The earliest; the queue must not be empty.
  Entry pop() {
    const Entry e{time_of(time_bits_[head_]), tie_breaks_[head_]};
    if (++head_ == tail_) head_ = tail_ = 0;  // empty: the next entries reuse the front, still in cache
    return e;
  }

 private:
  // A double's bit pattern and back (std::bit_cast is C++20, and rl/
  // includes this header as C++17 under clang: src/CMakeLists.txt).
  static uint64_t bits_of(double t) {
    uint64_t b;
    std::memcpy(&b, &t, sizeof b);
    return b;
  }
  static double time_of(uint64_t b) {
    double t;
    std::memcpy(&t, &b, sizeof t);
    return t;
  }
  using Key = unsigned __int128;
  static Key make_key(uint64_t time_bits, uint64_t tie_break) { return (static_cast<Key>(time_bits) << 64) | tie_break; }
  // The longest queue searched step by step from the back: 16 covers most
  // of the round-robin benchmark's (at most 23 entries, 9 on average); with
  // 4, bisection and its memmove took 3.4% of BM_Simulate/100000 and the
  // run was slower (best of 4: 6.5 against 7.6 M ops/s; 1k and 10k ops:
  // equal). Deciding once per push, by the queue's length, instead of
  // counting steps saves a compare and an increment per step.
  static constexpr size_t kLinearSteps = 16;
  void make_room();  // at tail_ == capacity: slides the window to the front, or doubles the arrays
  // With the hole at i and the entry before it later than key: finds the
  // first entry later than key by bisection, moves it and those after it up
  // by one, and returns where the hole is then.
  size_t open_by_bisection(size_t i, Key key);
  std::vector<uint64_t> time_bits_;  // the times' bit patterns
  std::vector<uint64_t> tie_breaks_;
  size_t head_ = 0;
  size_t tail_ = 0;
};

}  // namespace devplace
