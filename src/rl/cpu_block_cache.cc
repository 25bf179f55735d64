// File: cpu_block_cache.cc
// The large-block cache behind torch's CPU tensors (see cpu_block_cache.h).
//
// Every block, large or small, carries a 64-byte header before its data
// with its capacity, so the context of a DataPtr is its data pointer and
// torch's raw allocate/deallocate interface works (raw_deleter). Data stay
// 64-byte aligned, as torch's own allocator gives them.
#include "rl/cpu_block_cache.h"

#include <c10/core/CPUAllocator.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

namespace devplace::rl {

namespace {

constexpr size_t kHeader = 64;                  // keeps the data 64-byte aligned
constexpr size_t kMinBytes = size_t{8} << 20;   // smaller blocks: glibc's heap reuses them
constexpr size_t kMaxCachedBytes = size_t{1} << 30;

struct Header {
  size_t capacity;
};

class CpuBlockCache final : public at::Allocator {
 public:
  at::DataPtr allocate(size_t n) const override {
    void* data = n == 0 ? nullptr : take(n);
    return {data, data, &release, at::Device(at::DeviceType::CPU)};
  }
  at::DeleterFnPtr raw_deleter() const override { return &release; }

  static CpuBlockCache& instance() {
    static CpuBlockCache* cache = new CpuBlockCache;  // never destroyed: tensors may outlive static destruction
    return *cache;
  }

  CpuBlockCacheStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

 private:
  void* take(size_t n) const {
    if (n >= kMinBytes) {
      std::lock_guard<std::mutex> lock(mutex_);
      // The smallest cached block that holds n and wastes at most a quarter.
      auto it = free_.lower_bound(n);
      if (it != free_.end() && it->first <= n + n / 4) {
        void* data = it->second;
        stats_.cached_bytes -= it->first;
        ++stats_.reused;
        free_.erase(it);
        return data;
      }
      ++stats_.allocated;
    }
    void* base = nullptr;
    if (posix_memalign(&base, kHeader, kHeader + n) != 0) throw std::bad_alloc();
    static_cast<Header*>(base)->capacity = n;
    return static_cast<char*>(base) + kHeader;
  }

  static void release(void* data) {
    if (data == nullptr) return;
    void* base = static_cast<char*>(data) - kHeader;
    const size_t capacity = static_cast<Header*>(base)->capacity;
    if (capacity >= kMinBytes) {
      CpuBlockCache& self = instance();
      std::lock_guard<std::mutex> lock(self.mutex_);
      if (self.stats_.cached_bytes + capacity <= kMaxCachedBytes) {
        self.free_.emplace(capacity, data);
        self.stats_.cached_bytes += capacity;
        return;
      }
    }
    std::free(base);
  }

  mutable std::mutex mutex_;
  mutable std::multimap<size_t, void*> free_;  // capacity -> data of a freed block
  mutable CpuBlockCacheStats stats_;
};

}  // namespace

void use_cpu_block_cache() {
  static const bool installed = [] {
    c10::SetCPUAllocator(&CpuBlockCache::instance(), /*priority=*/1);
    return true;
  }();
  (void)installed;
}

CpuBlockCacheStats cpu_block_cache_stats() { return CpuBlockCache::instance().stats(); }

}  // namespace devplace::rl
