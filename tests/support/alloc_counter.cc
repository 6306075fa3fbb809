// Replaces the global allocation functions with counting versions (see alloc_counter.h).
// malloc itself is counted too, through glibc's __libc_* forwarding, so allocations that
// OpenSSL or ipsec-mb make with malloc are visible, not only C++ new. Every entry point that
// hands out heap memory is replaced, the aligned ones included: one left out would be an
// allocation the zero-allocation tests cannot see (C++17 aligned new for over-aligned types,
// posix_memalign in libraries that keep SIMD buffers).
#include "support/alloc_counter.h"

#include <malloc.h>

#include <cerrno>
#include <cstdlib>
#include <new>

extern "C" {
void* __libc_malloc(std::size_t size);                           // NOLINT
void* __libc_calloc(std::size_t n, std::size_t size);            // NOLINT
void* __libc_realloc(void* p, std::size_t size);                 // NOLINT
void __libc_free(void* p);                                       // NOLINT
void* __libc_memalign(std::size_t alignment, std::size_t size);  // NOLINT
void* __libc_valloc(std::size_t size);                           // NOLINT
void* __libc_pvalloc(std::size_t size);                          // NOLINT
}

namespace wireseal::test {
namespace {
thread_local AllocStats t_stats;

void note(std::size_t size) noexcept {
  ++t_stats.count;
  t_stats.bytes += size;
}

bool is_power_of_two(std::size_t n) noexcept { return n != 0 && (n & (n - 1)) == 0; }
}  // namespace

AllocStats alloc_stats() noexcept { return t_stats; }

}  // namespace wireseal::test

extern "C" {
void* malloc(std::size_t size) {  // NOLINT
  wireseal::test::note(size);
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {  // NOLINT
  wireseal::test::note(n * size);
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {  // NOLINT
  wireseal::test::note(size);
  return __libc_realloc(p, size);
}
void free(void* p) { __libc_free(p); }  // NOLINT

// memalign, valloc and pvalloc keep glibc's semantics (memalign rounds an alignment that is not
// a power of two up to one).
void* memalign(std::size_t alignment, std::size_t size) {  // NOLINT
  wireseal::test::note(size);
  return __libc_memalign(alignment, size);
}
void* valloc(std::size_t size) {  // NOLINT
  wireseal::test::note(size);
  return __libc_valloc(size);
}
void* pvalloc(std::size_t size) {  // NOLINT
  wireseal::test::note(size);
  return __libc_pvalloc(size);
}
// posix_memalign and aligned_alloc reject alignments that memalign would round, so they check
// before forwarding. POSIX: EINVAL unless the alignment is a power of two multiple of
// sizeof(void*), ENOMEM when out of memory; *out is left alone on failure, errno unchanged.
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {  // NOLINT
  if (!wireseal::test::is_power_of_two(alignment) || alignment % sizeof(void*) != 0) {
    return EINVAL;
  }
  const int saved_errno = errno;
  void* p = memalign(alignment, size);
  errno = saved_errno;
  if (p == nullptr) {
    return ENOMEM;
  }
  *out = p;
  return 0;
}
// C11/C17 as glibc implements it: a null result with errno EINVAL for an alignment that is not
// a power of two, ENOMEM (set by the allocator) when out of memory.
void* aligned_alloc(std::size_t alignment, std::size_t size) {  // NOLINT
  if (!wireseal::test::is_power_of_two(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  return memalign(alignment, size);
}
}

namespace {

void* aligned_new_or_null(std::size_t size, std::align_val_t alignment) noexcept {
  return memalign(static_cast<std::size_t>(alignment), size == 0 ? 1 : size);
}

}  // namespace

void* operator new(std::size_t size) {
  void* p = malloc(size == 0 ? 1 : size);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return p;
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  void* p = aligned_new_or_null(size, alignment);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return p;
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return operator new(size, alignment);
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return aligned_new_or_null(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return aligned_new_or_null(size, alignment);
}

// glibc's free releases memalign'd blocks too, so every delete is free.
void operator delete(void* p) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { free(p); }
void operator delete(void* p, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { free(p); }
// The sized deletes are declared first: <new> declares them only when sized deallocation is
// enabled (g++ by default, clang with -fsized-deallocation), and clang's -Wmissing-prototypes
// wants a prior declaration while g++'s -Wsized-deallocation wants the definitions.
void operator delete(void* p, std::size_t) noexcept;
void operator delete[](void* p, std::size_t) noexcept;
void operator delete(void* p, std::size_t, std::align_val_t) noexcept;
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept;
void operator delete(void* p, std::size_t) noexcept { free(p); }
void operator delete[](void* p, std::size_t) noexcept { free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { free(p); }
