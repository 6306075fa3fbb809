#pragma once
// A counting global allocator for tests and benchmarks.
//
// Linking alloc_counter.cc into a binary replaces every global operator new/delete (plain,
// array, nothrow, aligned) and the C allocation functions (malloc, calloc, realloc,
// posix_memalign, aligned_alloc, memalign, valloc, pvalloc), and counts each allocation.
// Counters are per thread so that a benchmark or test thread measures only its own
// allocations.

#include <cstddef>
#include <cstdint>

namespace wireseal::test {

struct AllocStats {
  std::uint64_t count = 0;  // number of allocations
  std::uint64_t bytes = 0;  // bytes requested
};

// alloc_stats returns this thread's running totals since the thread started.
AllocStats alloc_stats() noexcept;

// AllocScope measures allocations between its construction and allocations().
class AllocScope {
 public:
  AllocScope() noexcept : start_(alloc_stats()) {}
  AllocStats delta() const noexcept {
    const AllocStats now = alloc_stats();
    return {now.count - start_.count, now.bytes - start_.bytes};
  }

 private:
  AllocStats start_;
};

}  // namespace wireseal::test
