#pragma once
// Constant-time helpers and secure wiping, shared by every module.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#if defined(WIRESEAL_CT_VALIDATION) && WIRESEAL_CT_VALIDATION
#include <valgrind/memcheck.h>
// Constant-time validation build (-DWIRESEAL_CT_VALIDATION=ON): tests mark secrets (keys,
// and so everything computed from them) as undefined for valgrind memcheck, which then
// reports every branch and every memory address that depends on them. The library declares
// where a secret-derived value legitimately becomes public with WS_CT_DECLASSIFY.
#define WS_CT_SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define WS_CT_DECLASSIFY(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
#else
#define WS_CT_SECRET(p, n) ::wireseal::detail::ct_unmarked((p), (n))
#define WS_CT_DECLASSIFY(p, n) ::wireseal::detail::ct_unmarked((p), (n))
#endif

namespace wireseal::detail {

// ct_unmarked is what the marking macros expand to in ordinary builds: nothing.
inline void ct_unmarked(const volatile void* /*p*/, std::size_t /*n*/) noexcept {}

// kFuzzingAcceptsAnyTag is true only in the fuzzing build (WIRESEAL_FUZZING_UNSAFE): every
// tag and MAC check then passes, so that mutated ciphertext reaches the parsers behind
// authentication. Such a build protects nothing; CMake allows it only for fuzz targets.
#if defined(WIRESEAL_FUZZING_UNSAFE) && WIRESEAL_FUZZING_UNSAFE
inline constexpr bool kFuzzingAcceptsAnyTag = true;
#else
inline constexpr bool kFuzzingAcceptsAnyTag = false;
#endif

// Constant-time masks: all ones when the condition holds, zero otherwise, without branches.
// Inputs must be below half the range of size_t: 2^63 on 64-bit targets, 2^31 on 32-bit ones
// (record lengths and offsets always are).
inline std::size_t ct_mask_lt(std::size_t a, std::size_t b) noexcept {
  return std::size_t{0} - ((a - b) >> (8 * sizeof(std::size_t) - 1));
}
inline std::size_t ct_mask_ge(std::size_t a, std::size_t b) noexcept { return ~ct_mask_lt(a, b); }
inline std::size_t ct_mask_eq(std::size_t a, std::size_t b) noexcept {
  return ct_mask_ge(a, b) & ct_mask_ge(b, a);
}
inline std::size_t ct_select(std::size_t mask, std::size_t a, std::size_t b) noexcept {
  return (mask & a) | (~mask & b);
}

// 32-bit forms for byte loops that should vectorise. Inputs must be below 2^31. They are
// unsigned arithmetic on purpose: the optimiser cannot prove that a - b does not wrap, so it
// cannot turn the mask back into a comparison of the loop index with a secret and split the
// loop there (GCC's -fsplit-loops does exactly that to a plain `j < secret`).
inline std::uint32_t ct_mask_lt_u32(std::uint32_t a, std::uint32_t b) noexcept {
  return std::uint32_t{0} - ((a - b) >> 31);
}
inline std::uint32_t ct_mask_ge_u32(std::uint32_t a, std::uint32_t b) noexcept {
  return ~ct_mask_lt_u32(a, b);
}
inline std::uint32_t ct_mask_eq_u32(std::uint32_t a, std::uint32_t b) noexcept {
  return ct_mask_ge_u32(a, b) & ct_mask_ge_u32(b, a);
}

// 16-bit forms, for byte loops over small positions and counts (inputs below 2^15): eight
// lanes per 128-bit vector instead of four, so a masked byte loop costs about half. The same
// modular arithmetic as the 32-bit forms, for the same reason.
inline std::uint16_t ct_mask_lt_u16(std::uint16_t a, std::uint16_t b) noexcept {
  return static_cast<std::uint16_t>(0 - (static_cast<std::uint16_t>(a - b) >> 15));
}
inline std::uint16_t ct_mask_ge_u16(std::uint16_t a, std::uint16_t b) noexcept {
  return static_cast<std::uint16_t>(~ct_mask_lt_u16(a, b));
}
inline std::uint16_t ct_mask_eq_u16(std::uint16_t a, std::uint16_t b) noexcept {
  return static_cast<std::uint16_t>(ct_mask_ge_u16(a, b) & ct_mask_ge_u16(b, a));
}

// 8-bit forms, for byte loops over positions and counts below 2^7 (a 64-byte block's): a
// whole byte lane each, so 32 bytes per AVX2 step.
inline std::uint8_t ct_mask_lt_u8(std::uint8_t a, std::uint8_t b) noexcept {
  return static_cast<std::uint8_t>(0 - (static_cast<std::uint8_t>(a - b) >> 7));
}
inline std::uint8_t ct_mask_ge_u8(std::uint8_t a, std::uint8_t b) noexcept {
  return static_cast<std::uint8_t>(~ct_mask_lt_u8(a, b));
}
inline std::uint8_t ct_mask_eq_u8(std::uint8_t a, std::uint8_t b) noexcept {
  return static_cast<std::uint8_t>(ct_mask_ge_u8(a, b) & ct_mask_ge_u8(b, a));
}

// value_barrier returns `x` unchanged but hides where it came from, so the optimiser cannot
// fuse it with a secret into a new induction variable and branch on the result (seen: a
// loop counter rewritten in terms of a secret block index). Constant-time validation runs
// on the release flags to catch what such rewrites would slip in.
template <class T>
inline T value_barrier(T x) noexcept {
  __asm__("" : "+r"(x));
  return x;
}

// ct_equal compares two equal-length byte ranges without an early exit, so the time taken
// does not reveal where the first difference is. Different lengths compare unequal (the
// lengths themselves are public). Inline and eight bytes a step: it runs once per packet (a
// 16-byte tag is two words), and as a call with a byte loop it cost a batched GCM packet
// about 4 ns. The OR of the differences goes through value_barrier, so the compiler cannot
// turn the loop into an early-exit comparison.
inline bool ct_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) noexcept {
  if (a.size() != b.size()) {
    return false;
  }
  std::uint64_t diff = 0;
  std::size_t i = 0;
  for (; i + 8 <= a.size(); i += 8) {
    std::uint64_t x = 0;
    std::uint64_t y = 0;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    diff |= x ^ y;
  }
  for (; i < a.size(); ++i) {
    diff |= static_cast<std::uint64_t>(a[i] ^ b[i]);
  }
  return value_barrier(diff) == 0;
}

// accept_verdict turns the secret outcome of an authentication check into the public verdict
// the caller branches on (whether a record or packet is accepted is visible anyway). Every
// tag, MAC and padding verdict passes through here: it is where constant-time validation
// declassifies, and where the fuzzing build accepts everything.
inline bool accept_verdict(bool verified) noexcept {
  WS_CT_DECLASSIFY(&verified, sizeof(verified));
  return verified || kFuzzingAcceptsAnyTag;
}

// tag_matches compares a computed tag or MAC with the received one in constant time and
// returns the public verdict (accept_verdict).
inline bool tag_matches(std::span<const std::uint8_t> computed,
                        std::span<const std::uint8_t> received) noexcept {
  return accept_verdict(ct_equal(computed, received));
}

// WS_CT_VECTOR_CLONES marks a masked scan (constant-time loops over a record's last few hundred
// bytes) to be compiled for AVX2 as well on x86-64 with GCC: twice the SSE2 baseline's lanes,
// the clone chosen once by the loader from the CPU, so the instructions depend on nothing but
// the CPU either way.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WS_CT_VECTOR_CLONES [[gnu::target_clones("avx2", "default")]]
#else
#define WS_CT_VECTOR_CLONES
#endif

// secure_wipe zeroes `bytes` in a way the optimiser may not remove (keys, plaintext on failure).
void secure_wipe(void* bytes, std::size_t len) noexcept;

// wipe_small is secure_wipe inline, for a few dozen bytes on a hot path (a per-message
// Poly1305 state, a computed tag): the empty asm that may read the bytes keeps the optimiser
// from dropping the zeroing as a dead store, without secure_wipe's call.
inline void wipe_small(void* bytes, std::size_t len) noexcept {
  std::memset(bytes, 0, len);
  __asm__ __volatile__("" : : "r"(bytes) : "memory");
}

// overlaps_partially is true when [a, a+a_len) and [b, b+b_len) share bytes but do not start
// at the same address: the one aliasing that in-place kernels cannot handle.
inline bool overlaps_partially(const std::uint8_t* a, std::size_t a_len, const std::uint8_t* b,
                               std::size_t b_len) noexcept {
  if (a == b || a_len == 0 || b_len == 0) {
    return false;
  }
  return a < b + b_len && b < a + a_len;
}

// overlaps is true when the two ranges share any byte.
inline bool overlaps(const std::uint8_t* a, std::size_t a_len, const std::uint8_t* b,
                     std::size_t b_len) noexcept {
  return a_len != 0 && b_len != 0 && a < b + b_len && b < a + a_len;
}

}  // namespace wireseal::detail
