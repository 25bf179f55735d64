// File: rng.h
// Rng: the one seeded random generator every randomized part of devplace takes
// explicitly (no global state). splitmix64-seeded xoshiro256**: fast, small, and
// the same sequence on every platform for the same seed, which std::mt19937's
// distributions do not guarantee.
#pragma once

#include <cstdint>

namespace devplace {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& word : state_) word = splitmix64(seed);
  }

  // Next 64 uniformly distributed bits.
  uint64_t next_u64() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform double in [0, 1).
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n); n must be positive.
  uint64_t below(uint64_t n) { return static_cast<uint64_t>(uniform() * static_cast<double>(n)) % n; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_[4];
};

}  // namespace devplace
