// Replaces the global allocation functions with counting versions (see alloc_counter.h).
// malloc itself is counted too, through glibc's __libc_malloc forwarding, so allocations that
// OpenSSL or ipsec-mb make with malloc are visible, not only C++ new.
#include "support/alloc_counter.h"

#include <cstdlib>
#include <new>

extern "C" {
void* __libc_malloc(std::size_t size);        // NOLINT
void* __libc_calloc(std::size_t n, std::size_t size);  // NOLINT
void* __libc_realloc(void* p, std::size_t size);       // NOLINT
void __libc_free(void* p);                             // NOLINT
}

namespace wireseal::test {
namespace {
thread_local AllocStats t_stats;

void note(std::size_t size) noexcept {
  ++t_stats.count;
  t_stats.bytes += size;
}
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
}

void* operator new(std::size_t size) {
  void* p = malloc(size == 0 ? 1 : size);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return p;
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
// The sized deletes are declared first: <new> declares them only when sized deallocation is
// enabled (g++ by default, clang with -fsized-deallocation), and clang's -Wmissing-prototypes
// wants a prior declaration while g++'s -Wsized-deallocation wants the definitions.
void operator delete(void* p, std::size_t) noexcept;
void operator delete[](void* p, std::size_t) noexcept;
void operator delete(void* p, std::size_t) noexcept { free(p); }
void operator delete[](void* p, std::size_t) noexcept { free(p); }
