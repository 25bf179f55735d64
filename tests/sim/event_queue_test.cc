// File: event_queue_test.cc
// EventQueue against an ordered set of the same keys: every pop is the
// earliest (time, tie-break) queued, whatever the order of the pushes.
#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "common/rng.h"

namespace devplace {
namespace {

using Key = std::pair<double, uint64_t>;

// Pushes n keys made by next_time (tie-breaks count up), popping one after
// each push with probability pop_percent / 100, then drains; every pop is
// checked against the reference.
template <typename NextTime>
void check_against_a_set(EventQueue& q, Rng& rng, int n, int pop_percent, uint64_t& seq, NextTime next_time) {
  std::set<Key> ref;
  auto pop_one = [&] {
    ASSERT_FALSE(q.empty());
    const EventQueue::Entry e = q.pop();
    ASSERT_EQ(Key(e.time, e.tie_break), *ref.begin());
    ref.erase(ref.begin());
  };
  for (int i = 0; i < n; ++i) {
    const Key k{next_time(), seq++};
    q.push(k.first, k.second);
    ref.insert(k);
    ASSERT_EQ(q.size(), ref.size());
    if (static_cast<int>(rng.below(100)) < pop_percent) pop_one();
  }
  while (!ref.empty()) pop_one();
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, PopsInKeyOrderWhateverThePushOrder) {
  Rng rng(7);
  EventQueue q;
  uint64_t seq = 0;
  double now = 0;
  // As in a simulation: each new event a little after the current time, so
  // its place is near the back.
  check_against_a_set(q, rng, 20'000, 50, seq, [&] {
    now += 0.001 * static_cast<double>(rng.below(3));
    return now + 0.01 * static_cast<double>(rng.below(20));
  });
  // Times drawn at random among a few values (ties broken by the sequence
  // number), thousands queued at once: most places are found by bisection
  // and the arrays grow.
  check_against_a_set(q, rng, 5'000, 10, seq, [&] { return static_cast<double>(rng.below(50)); });
  // Each new event earlier than all queued: every push moves the whole window.
  double t = 1e6;
  check_against_a_set(q, rng, 2'000, 0, seq, [&] { return t -= 1.0; });
  // Cleared, the queue starts over.
  q.push(3.0, 1);
  q.clear();
  EXPECT_TRUE(q.empty());
  q.push(2.0, 9);
  q.push(2.0, 4);
  q.push(0.0, 5);
  EXPECT_EQ(q.pop().tie_break, 5u);
  EXPECT_EQ(q.pop().tie_break, 4u);
  EXPECT_EQ(q.pop().tie_break, 9u);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace devplace
