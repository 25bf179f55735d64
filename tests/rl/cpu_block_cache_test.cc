// Tests of the large-block cache behind torch's CPU tensors.
#include "rl/cpu_block_cache.h"

#include <gtest/gtest.h>
#include <c10/core/CPUAllocator.h>
#include <ATen/ATen.h>

namespace devplace::rl {
namespace {

TEST(CpuBlockCache, AFreedLargeBlockServesTheNextTensorOfItsSize) {
  use_cpu_block_cache();
  const CpuBlockCacheStats before = cpu_block_cache_stats();
  const void* first = nullptr;
  {
    at::Tensor a = at::full({4 << 20}, 3.0f);  // 16 MiB: cached when freed
    first = a.data_ptr();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
  }
  const CpuBlockCacheStats freed = cpu_block_cache_stats();
  EXPECT_EQ(freed.cached_bytes, before.cached_bytes + (size_t{16} << 20));
  at::Tensor b = at::zeros({4 << 20});  // the same size: the same block, zeroed as asked
  EXPECT_EQ(b.data_ptr(), first);
  EXPECT_EQ(b.sum().item<float>(), 0.0f);
  const CpuBlockCacheStats reused = cpu_block_cache_stats();
  EXPECT_EQ(reused.reused, before.reused + 1);
  EXPECT_EQ(reused.cached_bytes, before.cached_bytes);
  // A request that would waste more than a quarter of a cached block gets a new one.
  b = at::Tensor();
  at::Tensor c = at::ones({3 << 20});  // 12 MiB against the cached 16 MiB
  EXPECT_NE(c.data_ptr(), first);
  EXPECT_EQ(c.sum().item<float>(), static_cast<float>(3 << 20));
}

TEST(CpuBlockCache, SmallTensorsAndTheRawInterfaceWork) {
  use_cpu_block_cache();
  const CpuBlockCacheStats before = cpu_block_cache_stats();
  {
    at::Tensor small = at::arange(1000, at::kFloat);
    EXPECT_EQ(small.sum().item<float>(), 999.0f * 1000.0f / 2);
    at::Tensor empty = at::empty({0});
    EXPECT_EQ(empty.numel(), 0);
  }
  EXPECT_EQ(cpu_block_cache_stats().cached_bytes, before.cached_bytes);  // small blocks are not kept
  at::Allocator* allocator = c10::GetCPUAllocator();
  ASSERT_NE(allocator->raw_deleter(), nullptr);
  void* p = allocator->raw_allocate(100);
  static_cast<char*>(p)[99] = 1;
  allocator->raw_deallocate(p);
}

}  // namespace
}  // namespace devplace::rl
