// File: large_pages.cc
// Large blocks on transparent huge pages. Linked into the executables
// (devplace, devplace_bench), not the libraries: it replaces the global
// operator new and delete of the whole process, as C++ allows, so that
// blocks of 4 MiB and more (a graph file's text, the JSON parser's
// document, the op and tensor arrays of a large graph, the simulator's
// tables) are asked of the kernel as 2 MiB pages (madvise MADV_HUGEPAGE;
// Debian's default THP mode honours it). Smaller blocks are plain malloc.
//
// Why: a first touch of a 4 KiB page is a page fault, and on virtual
// machines a fault is dear. Reading a 50k-op graph (20 MB of JSON) touched
// about 17,000 pages; with this, a few dozen 2 MiB pages. See
// docs/formats.md (Import speed) for the figures.
//
// Not in sanitizer or fuzzer builds: their allocators track every block.
#include <sys/mman.h>

#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && !defined(DEVPLACE_NO_LARGE_PAGES)

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kLargeBlock = std::size_t{4} << 20;

void* allocate(std::size_t size) noexcept {
  if (size >= kLargeBlock) {
    // Whole huge pages, aligned on one: aligned_alloc's size must be a multiple of the alignment.
    const std::size_t rounded = (size + kHugePage - 1) & ~(kHugePage - 1);
    if (rounded < size) return nullptr;  // overflow
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p != nullptr) (void)::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: a refusal is harmless
    return p;
  }
  return std::malloc(size == 0 ? 1 : size);
}

}  // namespace

void* operator new(std::size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

// The small blocks (names, shapes, edge lists: most of a large graph's
// memory) come from glibc's heap, on 4 KiB pages: a 1M-op graph faulted in
// about 650 MB of them, over a second on this virtual machine. glibc puts
// its heap on transparent huge pages when the tunable glibc.malloc.hugetlb
// is 1, which it reads only as a process starts, so the executable runs
// itself again, once, with the tunable added to GLIBC_TUNABLES (before
// main: nothing has run yet; the process keeps its id). `devplace simulate`
// of a 1M-op binary graph: 2.8-3.3 s without, 2.3 s with (docs/formats.md).
// A user's own setting of the tunable is kept; if the exec fails, the
// process goes on as it is. Under valgrind, which runs the program itself
// and would be replaced by it, there is no exec (valgrind preloads its
// vgpreload libraries into the program it runs).
__attribute__((constructor)) void relaunch_with_huge_page_heap(int argc, char** argv, char** envp) {
  (void)argc;
  (void)envp;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb") != nullptr) return;
  if (const char* preload = std::getenv("LD_PRELOAD"); preload != nullptr && std::strstr(preload, "vgpreload") != nullptr) return;
  static char value[4096];
  constexpr const char* kSetting = "glibc.malloc.hugetlb=1";
  if (tunables != nullptr && *tunables != '\0') {
    if (std::strlen(tunables) + 1 + std::strlen(kSetting) + 1 > sizeof value) return;
    std::snprintf(value, sizeof value, "%s:%s", tunables, kSetting);
  } else {
    std::snprintf(value, sizeof value, "%s", kSetting);
  }
  if (::setenv("GLIBC_TUNABLES", value, 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // The exec failed: run as we are, without the tunable claimed to be set.
  if (tunables != nullptr) {
    ::setenv("GLIBC_TUNABLES", tunables, 1);
  } else {
    ::unsetenv("GLIBC_TUNABLES");
  }
}

}  // namespace

#endif
