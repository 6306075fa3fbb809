#pragma once
// AES-NI building blocks shared by the native kernels. Include only from translation units
// compiled with -maes -msse4.1 (see src/CMakeLists.txt); they run only after the CPU probe said
// AES-NI is present.

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "backend/portable/aes_key_schedule.h"
#include "backend/portable/count_dispatch.h"
#include "common/ct.h"

namespace wireseal::crypto::detail::aesni {

// KeySchedule holds the encryption round keys in registers-ready form.
struct KeySchedule {
  __m128i rk[15];
  int rounds = 0;

  // init expands a 16-, 24- or 32-byte key (throws std::invalid_argument otherwise) and
  // wipes the temporary expansion.
  void init(const std::uint8_t* key, std::size_t key_len) {
    AesRoundKeys keys;
    if (!expand_aes_key(key, key_len, keys)) {
      throw std::invalid_argument("wireseal: AES key must be 16, 24 or 32 bytes");
    }
    rounds = keys.rounds;
    for (int i = 0; i <= rounds; ++i) {
      rk[i] = _mm_load_si128(reinterpret_cast<const __m128i*>(keys.bytes[i]));
    }
    ::wireseal::detail::secure_wipe(&keys, sizeof(keys));
  }
  void wipe() noexcept {
    volatile unsigned char* p = reinterpret_cast<volatile unsigned char*>(rk);
    for (std::size_t i = 0; i < sizeof(rk); ++i) {
      p[i] = 0;
    }
  }
};

// DecryptSchedule holds the equivalent-inverse-cipher round keys for AESDEC.
struct DecryptSchedule {
  __m128i rk[15];
  int rounds = 0;

  void derive(const KeySchedule& enc) noexcept {
    rounds = enc.rounds;
    rk[0] = enc.rk[rounds];
    for (int i = 1; i < rounds; ++i) {
      rk[i] = _mm_aesimc_si128(enc.rk[rounds - i]);
    }
    rk[rounds] = enc.rk[0];
  }
  void wipe() noexcept {
    volatile unsigned char* p = reinterpret_cast<volatile unsigned char*>(rk);
    for (std::size_t i = 0; i < sizeof(rk); ++i) {
      p[i] = 0;
    }
  }
};

inline __m128i load(const std::uint8_t* p) noexcept {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline void store(std::uint8_t* p, __m128i v) noexcept {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

// The helpers below are templates on the round count R (10, 12 or 14) so that every round
// loop is fully unrolled and the round keys can live in registers; kernels pick R once per
// call with with_rounds(). Blocks are copied into locals: through a pointer the compiler could
// not rule out aliasing with the round keys and would store and reload every block each round.

// RoundKeys<R> is a by-value copy of the round keys, so they stay in registers in hot loops
// (with_rounds, count_dispatch.h, picks R).
template <int R>
struct RoundKeys {
  __m128i k[static_cast<std::size_t>(R + 1)];
  explicit RoundKeys(const __m128i* rk) noexcept {
    for (int i = 0; i <= R; ++i) {
      k[i] = rk[i];
    }
  }
};

template <int R>
inline __m128i encrypt_block(const RoundKeys<R>& rk, __m128i b) noexcept {
  b = _mm_xor_si128(b, rk.k[0]);
  for (int r = 1; r < R; ++r) {
    b = _mm_aesenc_si128(b, rk.k[r]);
  }
  return _mm_aesenclast_si128(b, rk.k[R]);
}

// encrypt_whitened runs the rounds on a block already XORed with round key 0. Chained modes
// (CBC-MAC, CBC encryption) fold that XOR into the message block off the critical path, which
// leaves one XOR instead of two between consecutive AES chains.
template <int R>
inline __m128i encrypt_whitened(const RoundKeys<R>& rk, __m128i x) noexcept {
  for (int r = 1; r < R; ++r) {
    x = _mm_aesenc_si128(x, rk.k[r]);
  }
  return _mm_aesenclast_si128(x, rk.k[R]);
}

// encrypt_2 runs two independent blocks through the rounds together so their AESENC latencies
// overlap (CCM's CBC-MAC and CTR halves).
template <int R>
inline void encrypt_2(const RoundKeys<R>& rk, __m128i& a, __m128i& b) noexcept {
  __m128i x = _mm_xor_si128(a, rk.k[0]);
  __m128i y = _mm_xor_si128(b, rk.k[0]);
  for (int r = 1; r < R; ++r) {
    x = _mm_aesenc_si128(x, rk.k[r]);
    y = _mm_aesenc_si128(y, rk.k[r]);
  }
  a = _mm_aesenclast_si128(x, rk.k[R]);
  b = _mm_aesenclast_si128(y, rk.k[R]);
}

// encrypt_n runs N independent blocks through the rounds together.
template <int R, int N>
inline void encrypt_n(const RoundKeys<R>& rk, __m128i* b) noexcept {
  __m128i x[static_cast<std::size_t>(N)];
  for (int i = 0; i < N; ++i) {
    x[i] = _mm_xor_si128(b[i], rk.k[0]);
  }
  for (int r = 1; r < R; ++r) {
    for (int i = 0; i < N; ++i) {
      x[i] = _mm_aesenc_si128(x[i], rk.k[r]);
    }
  }
  for (int i = 0; i < N; ++i) {
    b[i] = _mm_aesenclast_si128(x[i], rk.k[R]);
  }
}

template <int R, int N>
inline void decrypt_n(const RoundKeys<R>& rk, __m128i* b) noexcept {
  __m128i x[static_cast<std::size_t>(N)];
  for (int i = 0; i < N; ++i) {
    x[i] = _mm_xor_si128(b[i], rk.k[0]);
  }
  for (int r = 1; r < R; ++r) {
    for (int i = 0; i < N; ++i) {
      x[i] = _mm_aesdec_si128(x[i], rk.k[r]);
    }
  }
  for (int i = 0; i < N; ++i) {
    b[i] = _mm_aesdeclast_si128(x[i], rk.k[R]);
  }
}

// encrypt_many runs `count` (0..16) independent blocks through the rounds together: the
// multi-buffer primitive (latency of one chain, throughput of all).
template <int R>
inline void encrypt_many(const RoundKeys<R>& rk, __m128i* b, std::size_t count) noexcept {
  with_count<16>(count, [&](auto n) { encrypt_n<R, static_cast<int>(decltype(n)::value)>(rk, b); });
}

// xor_partial XORs `len` (< 16) bytes of `in` with the low bytes of `keystream` into `out`.
inline void xor_partial(const std::uint8_t* in, std::uint8_t* out, std::size_t len,
                        __m128i keystream) noexcept {
  alignas(16) std::uint8_t ks[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(ks), keystream);
  for (std::size_t i = 0; i < len; ++i) {
    out[i] = static_cast<std::uint8_t>(in[i] ^ ks[i]);
  }
}

// load_partial reads `len` (< 16) bytes into the low bytes of a zeroed block.
inline __m128i load_partial(const std::uint8_t* in, std::size_t len) noexcept {
  alignas(16) std::uint8_t block[16] = {};
  std::memcpy(block, in, len);
  return _mm_load_si128(reinterpret_cast<const __m128i*>(block));
}

}  // namespace wireseal::crypto::detail::aesni
