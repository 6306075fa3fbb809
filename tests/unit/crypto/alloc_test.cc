// Zero-allocation tests: after construction and one warm-up call, the per-packet operations of
// every keyed crypto object make no heap allocation, on every available backend. The binary
// links tests/support/alloc_counter.cc, which counts operator new and malloc per thread.
//
// Inside a measured loop nothing may allocate, including gtest: results are collected in plain
// variables and asserted after the scope closes.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "crypto_test_util.h"
#include "support/alloc_counter.h"
#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/crypto/mac.h"

namespace wireseal::test {
namespace {

using crypto::Aead;
using crypto::AeadAlgorithm;
using crypto::AeadOptions;
using crypto::Backend;
using crypto::HashAlgorithm;
using crypto::Primitive;

constexpr int kIterations = 1000;
constexpr std::size_t kSizes[] = {16, 1400};

Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<std::uint8_t>(seed + 7 * i);
  }
  return b;
}

// Storage the optimiser cannot see through, so the control allocations are not elided.
int* volatile g_int_sink = nullptr;
void* volatile g_malloc_sink = nullptr;

// The counter must work, or every zero below would be vacuous.
TEST(AllocCounter, CountsNewAndMalloc) {
  AllocScope scope;
  g_int_sink = new int(42);
  delete g_int_sink;
  EXPECT_EQ(scope.delta().count, 1u);
  g_malloc_sink = std::malloc(100);
  std::free(g_malloc_sink);
  EXPECT_EQ(scope.delta().count, 2u);
  EXPECT_GE(scope.delta().bytes, 100 + sizeof(int));
  std::vector<std::uint8_t> v(1000);
  g_malloc_sink = v.data();  // an unused vector's allocation may be elided (clang does)
  EXPECT_EQ(scope.delta().count, 3u);
}

// Every allocation function the counter replaces, each called once and freed with its match.
// A function that bypassed the counter would make the zero-allocation tests blind to it.
// Results go through g_malloc_sink so the optimiser cannot drop an allocation/free pair.
constexpr std::size_t kOverAligned = 64;
constexpr std::align_val_t kOverAlignedNew{kOverAligned};
// A new-expression of this type calls the aligned operator new the compiler picks itself.
struct alignas(kOverAligned) OverAligned {
  unsigned char bytes[2 * kOverAligned];  // over 100 bytes, like every other call below
};
OverAligned* volatile g_over_aligned_sink = nullptr;

struct AllocationFunction {
  const char* name;
  std::size_t alignment;                  // the result must be a multiple of this
  std::uintptr_t (*allocate_and_free)();  // returns the address it got (0: none)
};

std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

// address_of records where an allocation landed, taken before the block is freed.
std::uintptr_t address_of(void* p) {
  g_malloc_sink = p;
  return reinterpret_cast<std::uintptr_t>(p);
}

std::uintptr_t keep_and_free(void* p) {
  const std::uintptr_t address = address_of(p);
  std::free(p);
  return address;
}

const AllocationFunction kAllocationFunctions[] = {
    {"operator new", alignof(std::max_align_t),
     [] {
       void* p = ::operator new(100);
       const std::uintptr_t address = address_of(p);
       ::operator delete(p);
       return address;
     }},
    {"operator new[]", alignof(std::max_align_t),
     [] {
       void* p = ::operator new[](100);
       const std::uintptr_t address = address_of(p);
       ::operator delete[](p);
       return address;
     }},
    {"operator new(nothrow)", alignof(std::max_align_t),
     [] {
       void* p = ::operator new(100, std::nothrow);
       const std::uintptr_t address = address_of(p);
       ::operator delete(p, std::nothrow);
       return address;
     }},
    {"operator new[](nothrow)", alignof(std::max_align_t),
     [] {
       void* p = ::operator new[](100, std::nothrow);
       const std::uintptr_t address = address_of(p);
       ::operator delete[](p, std::nothrow);
       return address;
     }},
    {"operator new(align_val_t)", kOverAligned,
     [] {
       void* p = ::operator new(100, kOverAlignedNew);
       const std::uintptr_t address = address_of(p);
       ::operator delete(p, kOverAlignedNew);
       return address;
     }},
    {"operator new[](align_val_t)", kOverAligned,
     [] {
       void* p = ::operator new[](100, kOverAlignedNew);
       const std::uintptr_t address = address_of(p);
       ::operator delete[](p, kOverAlignedNew);
       return address;
     }},
    {"operator new(align_val_t, nothrow)", kOverAligned,
     [] {
       void* p = ::operator new(100, kOverAlignedNew, std::nothrow);
       const std::uintptr_t address = address_of(p);
       ::operator delete(p, kOverAlignedNew, std::nothrow);
       return address;
     }},
    {"operator new[](align_val_t, nothrow)", kOverAligned,
     [] {
       void* p = ::operator new[](100, kOverAlignedNew, std::nothrow);
       const std::uintptr_t address = address_of(p);
       ::operator delete[](p, kOverAlignedNew, std::nothrow);
       return address;
     }},
    {"new OverAligned", kOverAligned,
     [] {
       g_over_aligned_sink = new OverAligned;
       const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(g_over_aligned_sink);
       delete g_over_aligned_sink;
       return address;
     }},
    {"malloc", alignof(std::max_align_t), [] { return keep_and_free(std::malloc(100)); }},
    {"calloc", alignof(std::max_align_t), [] { return keep_and_free(std::calloc(10, 10)); }},
    {"realloc", alignof(std::max_align_t),
     [] { return keep_and_free(std::realloc(nullptr, 100)); }},
    {"posix_memalign", kOverAligned,
     [] {
       void* p = nullptr;
       return keep_and_free(posix_memalign(&p, kOverAligned, 100) == 0 ? p : nullptr);
     }},
    {"aligned_alloc", kOverAligned, [] { return keep_and_free(aligned_alloc(kOverAligned, 128)); }},
    {"memalign", kOverAligned, [] { return keep_and_free(memalign(kOverAligned, 100)); }},
    {"valloc", page_size(), [] { return keep_and_free(valloc(100)); }},
    {"pvalloc", page_size(), [] { return keep_and_free(pvalloc(100)); }},
};

TEST(AllocCounter, CountsEveryAllocationFunction) {
  for (const AllocationFunction& f : kAllocationFunctions) {
    AllocScope scope;
    const std::uintptr_t address = f.allocate_and_free();
    const AllocStats delta = scope.delta();
    EXPECT_NE(address, 0u) << f.name;
    EXPECT_EQ(address % f.alignment, 0u) << f.name;
    EXPECT_EQ(delta.count, 1u) << f.name;
    EXPECT_GE(delta.bytes, 100u) << f.name;
  }
}

// The replacements keep the error contracts of the functions they replace.
TEST(AllocCounter, AlignedAllocationErrorsKeepTheirContracts) {
  // Volatile, so compilers do not reject the invalid arguments at compile time. `huge` is
  // larger than any address space, yet below PTRDIFF_MAX; a 32-bit target has no such size,
  // and takes one just below SIZE_MAX, which no allocator can serve either.
  volatile std::size_t huge = sizeof(std::size_t) == 8
                                  ? std::size_t(std::uint64_t{1} << 50)
                                  : std::numeric_limits<std::size_t>::max() - 4096;
  volatile std::size_t not_a_power_of_two = 3 * sizeof(void*);
  volatile std::size_t not_a_pointer_multiple = sizeof(void*) / 2;
  int sentinel = 0;
  void* const untouched = &sentinel;
  void* p = untouched;
  // Results are taken first and checked afterwards, so nothing gtest does can touch errno. The
  // calls go through volatile pointers: compilers model these functions as leaving errno alone
  // (clang folds the errno reads below to the 0 stored before them otherwise).
  int (*volatile posix_memalign_fn)(void**, std::size_t, std::size_t) = &posix_memalign;
  void* (*volatile aligned_alloc_fn)(std::size_t, std::size_t) = &aligned_alloc;
  errno = 0;
  const int not_power_of_two = posix_memalign_fn(&p, not_a_power_of_two, 16);
  const int not_pointer_multiple = posix_memalign_fn(&p, not_a_pointer_multiple, 16);
  const int out_of_memory = posix_memalign_fn(&p, kOverAligned, huge);
  const int errno_after_posix_memalign = errno;
  EXPECT_EQ(not_power_of_two, EINVAL);
  EXPECT_EQ(not_pointer_multiple, EINVAL);
  EXPECT_EQ(out_of_memory, ENOMEM);
  EXPECT_EQ(p, untouched) << "posix_memalign must leave *out alone on failure";
  EXPECT_EQ(errno_after_posix_memalign, 0) << "posix_memalign must not change errno";

  void* const bad_alignment = aligned_alloc_fn(not_a_power_of_two, 16);
  const int errno_after_bad_alignment = errno;
  errno = 0;
  void* const too_large = aligned_alloc_fn(kOverAligned, huge);
  const int errno_after_too_large = errno;
  EXPECT_EQ(bad_alignment, nullptr);
  EXPECT_EQ(errno_after_bad_alignment, EINVAL);
  EXPECT_EQ(too_large, nullptr);
  EXPECT_EQ(errno_after_too_large, ENOMEM);

  EXPECT_EQ(::operator new(huge, kOverAlignedNew, std::nothrow), nullptr);
  EXPECT_THROW(g_malloc_sink = ::operator new(huge, kOverAlignedNew), std::bad_alloc);
}

std::string at(const char* what, Backend b) {
  return std::string(what) + " [" + std::string(crypto::to_string(b)) + "]";
}

TEST(ZeroAlloc, AeadSealAndOpenOnEveryBackend) {
  const AeadAlgorithm algorithms[] = {AeadAlgorithm::kAes128Gcm,       AeadAlgorithm::kAes192Gcm,
                                      AeadAlgorithm::kAes256Gcm,       AeadAlgorithm::kAes128Ccm,
                                      AeadAlgorithm::kAes192Ccm,       AeadAlgorithm::kAes256Ccm,
                                      AeadAlgorithm::kChaCha20Poly1305};
  int combos = 0;
  for (AeadAlgorithm alg : algorithms) {
    for (Backend b : expected_backends(crypto::primitive_of(alg))) {
      const std::string where = at(crypto::to_string(alg), b);
      Aead aead(alg, pattern(crypto::info(alg).key_len, 1), AeadOptions{.backend = b});
      const Bytes nonce = pattern(12, 2);
      const Bytes aad = pattern(13, 3);
      for (std::size_t size : kSizes) {
        const Bytes plaintext = pattern(size, 4);
        Bytes ct(size);
        Bytes pt(size);
        Bytes rejected(size);  // the failing open zeroes its output
        Bytes tag(16);
        Bytes bad_tag(16);
        // Warm-up: lazy initialisation (OpenSSL method caches, CPU probes) may allocate once.
        ASSERT_TRUE(aead.seal(nonce, aad, plaintext, ct, tag)) << where;
        ASSERT_TRUE(aead.open(nonce, aad, ct, pt, tag)) << where;
        bad_tag = tag;
        bad_tag[0] ^= 1;
        (void)aead.open(nonce, aad, ct, rejected, bad_tag);
        int failures = 0;
        AllocScope scope;
        for (int i = 0; i < kIterations; ++i) {
          failures += aead.seal(nonce, aad, plaintext, ct, tag) ? 0 : 1;
          failures += aead.open(nonce, aad, ct, pt, tag) ? 0 : 1;
          failures += aead.open(nonce, aad, ct, rejected, bad_tag) ? 1 : 0;  // failure path
          failures += aead.seal(nonce, aad, ct, ct, tag) ? 0 : 1;            // in place
          failures += aead.open(nonce, aad, ct, ct, tag) ? 0 : 1;
        }
        const AllocStats delta = scope.delta();
        EXPECT_EQ(failures, 0) << where << " size " << size;
        EXPECT_EQ(delta.count, 0u) << where << " size " << size << ": " << delta.bytes << " bytes";
        EXPECT_EQ(pt, plaintext) << where;
      }
      ++combos;
    }
  }
  report("zero-alloc AEAD", std::to_string(combos) + " algorithm/backend combos");
}

TEST(ZeroAlloc, AeadBatchCallsOnEveryBackend) {
  constexpr std::size_t kJobs = 10;
  for (AeadAlgorithm alg :
       {AeadAlgorithm::kAes128Gcm, AeadAlgorithm::kAes256Ccm, AeadAlgorithm::kChaCha20Poly1305}) {
    for (Backend b : expected_backends(crypto::primitive_of(alg))) {
      const std::string where = at(crypto::to_string(alg), b);
      Aead aead(alg, pattern(crypto::info(alg).key_len, 1), AeadOptions{.backend = b});
      for (std::size_t size : kSizes) {
        std::vector<Bytes> nonces, pts, cts, outs, tags;
        for (std::size_t i = 0; i < kJobs; ++i) {
          nonces.push_back(pattern(12, static_cast<std::uint8_t>(i)));
          pts.push_back(pattern(size, static_cast<std::uint8_t>(i + 1)));
          cts.emplace_back(size);
          outs.emplace_back(size);
          tags.emplace_back(16);
        }
        const Bytes aad = pattern(13, 3);
        std::vector<crypto::SealJob> seal_jobs(kJobs);
        std::vector<crypto::OpenJob> open_jobs(kJobs);
        auto reset_jobs = [&] {  // the batch calls trim spans, so rebuild them each round
          for (std::size_t i = 0; i < kJobs; ++i) {
            seal_jobs[i] = {nonces[i], aad, pts[i], cts[i], tags[i], {}};
            open_jobs[i] = {nonces[i], aad, cts[i], outs[i], tags[i], {}};
          }
        };
        reset_jobs();
        aead.seal_batch(seal_jobs);
        aead.open_batch(open_jobs);
        int failures = 0;
        AllocScope scope;
        for (int round = 0; round < kIterations / 10; ++round) {
          reset_jobs();
          aead.seal_batch(seal_jobs);
          aead.open_batch(open_jobs);
          for (std::size_t i = 0; i < kJobs; ++i) {
            failures += seal_jobs[i].status && open_jobs[i].status ? 0 : 1;
          }
        }
        const AllocStats delta = scope.delta();
        EXPECT_EQ(failures, 0) << where << " size " << size;
        EXPECT_EQ(delta.count, 0u) << where << " size " << size << ": " << delta.bytes << " bytes";
        EXPECT_EQ(outs, pts) << where;
      }
    }
  }
}

TEST(ZeroAlloc, AesCtrAndCbcOnEveryBackend) {
  const std::uint8_t iv_bytes[16] = {1, 2, 3};
  const std::span<const std::uint8_t, 16> iv(iv_bytes);
  for (std::size_t key_len : {16u, 32u}) {
    for (Backend b : expected_backends(Primitive::kAesCtr)) {
      const std::string where = at("AesCtr", b);
      crypto::AesCtr ctr(pattern(key_len, 1), b);
      for (std::size_t size : kSizes) {
        const Bytes in = pattern(size, 2);
        Bytes out(size);
        Bytes out2(size);
        crypto::CtrJob jobs[] = {{iv, in, out, {}}, {iv, in, out2, {}}};
        ASSERT_TRUE(ctr.apply(iv, in, out));
        ctr.apply_batch(jobs);
        int failures = 0;
        AllocScope scope;
        for (int i = 0; i < kIterations; ++i) {
          failures += ctr.apply(iv, in, out) ? 0 : 1;
          failures += ctr.apply(iv, out, out) ? 0 : 1;
          ctr.apply_batch(jobs);
          failures += jobs[0].status && jobs[1].status ? 0 : 1;
        }
        const AllocStats delta = scope.delta();
        EXPECT_EQ(failures, 0) << where;
        EXPECT_EQ(delta.count, 0u) << where << " size " << size;
      }
    }
    for (Backend b : expected_backends(Primitive::kAesCbc)) {
      const std::string where = at("AesCbc", b);
      crypto::AesCbc cbc(pattern(key_len, 1), b);
      for (std::size_t size : kSizes) {
        const std::size_t n = size / 16 * 16;
        const Bytes in = pattern(n, 2);
        Bytes ct(n);
        Bytes pt(n);
        ASSERT_TRUE(cbc.encrypt(iv, in, ct));
        ASSERT_TRUE(cbc.decrypt(iv, ct, pt));
        int failures = 0;
        AllocScope scope;
        for (int i = 0; i < kIterations; ++i) {
          failures += cbc.encrypt(iv, in, ct) ? 0 : 1;
          failures += cbc.decrypt(iv, ct, pt) ? 0 : 1;
          failures += cbc.decrypt(iv, ct, ct) ? 0 : 1;  // in place
          failures += cbc.encrypt(iv, ct, ct) ? 0 : 1;
        }
        const AllocStats delta = scope.delta();
        EXPECT_EQ(failures, 0) << where;
        EXPECT_EQ(delta.count, 0u) << where << " size " << n;
      }
    }
  }
}

TEST(ZeroAlloc, AesCmacAndGmacOnEveryBackend) {
  for (Backend b : expected_backends(Primitive::kAesCmac)) {
    const std::string where = at("AesCmac", b);
    crypto::AesCmac cmac(pattern(16, 1), b);
    for (std::size_t size : kSizes) {
      const Bytes msg = pattern(size, 2);
      Bytes mac(16);
      Bytes mac2(8);
      crypto::CmacJob jobs[] = {{msg, mac, {}}, {msg, mac2, {}}};
      ASSERT_TRUE(cmac.compute(msg, mac));
      ASSERT_TRUE(cmac.verify(msg, mac));
      cmac.compute_batch(jobs);
      int failures = 0;
      AllocScope scope;
      for (int i = 0; i < kIterations; ++i) {
        failures += cmac.compute(msg, mac) ? 0 : 1;
        failures += cmac.verify(msg, mac) ? 0 : 1;
        cmac.compute_batch(jobs);
        failures += jobs[0].status && jobs[1].status ? 0 : 1;
      }
      const AllocStats delta = scope.delta();
      EXPECT_EQ(failures, 0) << where;
      EXPECT_EQ(delta.count, 0u) << where << " size " << size;
    }
  }
  for (Backend b : expected_backends(Primitive::kAesGcm)) {
    const std::string where = at("AesGmac", b);
    crypto::AesGmac gmac(pattern(32, 1), b);
    const Bytes nonce_bytes = pattern(12, 3);
    const std::span<const std::uint8_t, 12> nonce(nonce_bytes.data(), 12);
    for (std::size_t size : kSizes) {
      const Bytes msg = pattern(size, 2);
      Bytes mac(16);
      ASSERT_TRUE(gmac.compute(nonce, msg, mac));
      ASSERT_TRUE(gmac.verify(nonce, msg, mac));
      int failures = 0;
      AllocScope scope;
      for (int i = 0; i < kIterations; ++i) {
        failures += gmac.compute(nonce, msg, mac) ? 0 : 1;
        failures += gmac.verify(nonce, msg, mac) ? 0 : 1;
      }
      const AllocStats delta = scope.delta();
      EXPECT_EQ(failures, 0) << where;
      EXPECT_EQ(delta.count, 0u) << where << " size " << size;
    }
  }
}

TEST(ZeroAlloc, HmacEveryHash) {
  for (HashAlgorithm h : {HashAlgorithm::kSha1, HashAlgorithm::kSha224, HashAlgorithm::kSha256,
                          HashAlgorithm::kSha384, HashAlgorithm::kSha512}) {
    const std::string where = std::string("HMAC-") + crypto::to_string(h);
    const crypto::Hmac hmac(h, pattern(32, 1));
    for (std::size_t size : kSizes) {
      const Bytes msg = pattern(size, 2);
      Bytes mac(hmac.digest_len());
      Bytes mac10(10);
      ASSERT_TRUE(hmac.compute(msg, mac));
      int failures = 0;
      AllocScope scope;
      for (int i = 0; i < kIterations; ++i) {
        failures += hmac.compute(msg, mac) ? 0 : 1;
        failures += hmac.verify(msg, mac) ? 0 : 1;
        crypto::Hmac::Stream s = hmac.begin();
        s.update(std::span(msg).first(size / 2));
        s.update(std::span(msg).subspan(size / 2));
        failures += s.finish(mac10) ? 0 : 1;
      }
      const AllocStats delta = scope.delta();
      EXPECT_EQ(failures, 0) << where;
      EXPECT_EQ(delta.count, 0u) << where << " size " << size;
    }
  }
}

TEST(ZeroAlloc, HmacEveryBackendIncludingBatchAndSecretLength) {
  for (HashAlgorithm h : {HashAlgorithm::kSha1, HashAlgorithm::kSha224, HashAlgorithm::kSha256,
                          HashAlgorithm::kSha384, HashAlgorithm::kSha512}) {
    for (Backend b : expected_backends(crypto::hmac_primitive(h))) {
      const std::string where = std::string("HMAC-") + crypto::to_string(h) + " [" +
                                std::string(crypto::to_string(b)) + "]";
      const crypto::Hmac hmac(h, pattern(32, 1), b);
      for (std::size_t size : kSizes) {
        const Bytes msg = pattern(size, 2);
        const Bytes header = pattern(13, 3);
        Bytes mac(hmac.digest_len());
        std::vector<Bytes> outs(5, Bytes(10));
        std::vector<crypto::HmacJob> jobs(outs.size());
        for (std::size_t i = 0; i < jobs.size(); ++i) {
          jobs[i] = crypto::HmacJob{{header, msg, {}}, outs[i], {}};
        }
        ASSERT_TRUE(hmac.compute(msg, mac));
        int failures = 0;
        AllocScope scope;
        for (int i = 0; i < kIterations; ++i) {
          failures += hmac.compute(msg, mac) ? 0 : 1;
          failures += hmac.verify(msg, mac) ? 0 : 1;
          hmac.compute_batch(jobs);
          failures += jobs[4].status ? 0 : 1;
          hmac.compute_secret_length(header, msg, size / 2, 0, mac);
        }
        const AllocStats delta = scope.delta();
        EXPECT_EQ(failures, 0) << where;
        EXPECT_EQ(delta.count, 0u) << where << " size " << size;
      }
    }
  }
}

}  // namespace
}  // namespace wireseal::test
