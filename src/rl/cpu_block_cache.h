// File: cpu_block_cache.h
// A LibTorch CPU allocator that keeps large freed blocks for the next
// tensor of about the same size.
//
// A learned placer's update allocates and frees the same large tensors
// every time (the hierarchical planner's per-sample grouping and its
// gradients: 40-90 MB each on NMT). glibc serves blocks over its largest
// mmap threshold (32 MB) with mmap and unmaps them on free, so each update
// paid the kernel to fault in and zero them again: a third of the
// hierarchical planner's time on NMT/k80x4 went to the kernel (perf:
// 170,000 page faults per update). Blocks of at least kMinBytes are kept
// here when freed (up to kMaxCachedBytes in all) and handed to the next
// request that fits in them without wasting more than a quarter; smaller
// ones go to torch's own allocator.
#pragma once

#include <cstddef>

namespace devplace::rl {

// Makes the block cache torch's CPU allocator (once; later calls do
// nothing). Tensors allocated before keep their own deleters.
void use_cpu_block_cache();

// What the cache holds now and has done (for tests and benchmarks).
struct CpuBlockCacheStats {
  size_t cached_bytes = 0;   // freed blocks held for reuse
  size_t reused = 0;         // requests served from the cache
  size_t allocated = 0;      // large blocks allocated from the system
};
CpuBlockCacheStats cpu_block_cache_stats();

}  // namespace devplace::rl
