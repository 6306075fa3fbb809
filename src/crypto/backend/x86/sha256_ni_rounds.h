#pragma once
// SHA-256 compression rounds with SHA-NI, shared by the compression kernels (sha256_ni.cc) and the
// kernels that run them beside AES (cbc_sha_ni.cc). Include only from translation units
// compiled with -msha -msse4.1.
//
// The state lives as ABEF / CDGH in two registers (the layout SHA256RNDS2 wants). The 64
// rounds run as 16 groups of four: two SHA256RNDS2 per group, each taking two K+W words. The
// message schedule for group h+4 is built in groups h+1 (msg1) and h+3 (alignr, add, msg2),
// in one of four rotating registers. Groups are templates so indices are constants, and forced
// inline: out of line, the state would go through memory between blocks.
#include <immintrin.h>

#include <cstdint>

#include "backend/portable/sha256_constants.h"

namespace wireseal::crypto::detail::sha256ni {
struct Lane {
  __m128i state0;  // ABEF
  __m128i state1;  // CDGH
  __m128i msg[4];
  __m128i save0;
  __m128i save1;
};

inline void load_state(Lane& l, const std::uint32_t* state) noexcept {
  const __m128i abcd =
      _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state)), 0xb1);
  const __m128i efgh =
      _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4)), 0x1b);
  l.state0 = _mm_alignr_epi8(abcd, efgh, 8);
  l.state1 = _mm_blend_epi16(efgh, abcd, 0xf0);
}

inline void store_state(const Lane& l, std::uint32_t* state) noexcept {
  const __m128i feba = _mm_shuffle_epi32(l.state0, 0x1b);
  const __m128i dchg = _mm_shuffle_epi32(l.state1, 0xb1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(feba, dchg, 0xf0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(dchg, feba, 8));
}

// load_word<W> loads message word group W (bytes 16W..16W+15 of the block) into the schedule
// register the rounds read it from: groups 0..3 take the block's four words.
template <int W>
[[gnu::always_inline]] inline void load_word(Lane& l, const std::uint8_t* block) noexcept {
  static_assert(W >= 0 && W < 4);
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  l.msg[W] =
      _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * W)), bswap);
}

// group<G> runs rounds 4G..4G+3 and the message schedule work that belongs to them; the
// block's words must already be loaded (load_word) for G < 4.
template <int G>
[[gnu::always_inline]] inline void group(Lane& l) noexcept {
  constexpr int cur = G % 4;
  if constexpr (G == 0) {
    l.save0 = l.state0;
    l.save1 = l.state1;
  }
  __m128i wk =
      _mm_add_epi32(l.msg[cur], _mm_load_si128(reinterpret_cast<const __m128i*>(kSha256K + 4 * G)));
  l.state1 = _mm_sha256rnds2_epu32(l.state1, l.state0, wk);
  if constexpr (G >= 3 && G <= 14) {
    constexpr int next = (G + 1) % 4;
    const __m128i tmp = _mm_alignr_epi8(l.msg[cur], l.msg[(G + 3) % 4], 4);
    l.msg[next] = _mm_sha256msg2_epu32(_mm_add_epi32(l.msg[next], tmp), l.msg[cur]);
  }
  wk = _mm_shuffle_epi32(wk, 0x0e);
  l.state0 = _mm_sha256rnds2_epu32(l.state0, l.state1, wk);
  if constexpr (G >= 1 && G <= 12) {
    l.msg[(G + 3) % 4] = _mm_sha256msg1_epu32(l.msg[(G + 3) % 4], l.msg[cur]);
  }
  if constexpr (G == 15) {
    l.state0 = _mm_add_epi32(l.state0, l.save0);
    l.state1 = _mm_add_epi32(l.state1, l.save1);
  }
}

}  // namespace wireseal::crypto::detail::sha256ni

namespace wireseal::crypto::detail {

// Sha256Rounds is this hash's rounds behind the interface the shared drivers use (sha_ni_lanes.h):
// the compression kernels and the stitched CBC kernel (cbc_sha_ni.cc). Forced inline, as the
// groups are: out of line, the state would go through memory.
struct Sha256Rounds {
  using Lane = sha256ni::Lane;
  static constexpr int kGroups = 16;
  static void load_state(Lane& l, const std::uint32_t* s) noexcept { sha256ni::load_state(l, s); }
  static void store_state(const Lane& l, std::uint32_t* s) noexcept { sha256ni::store_state(l, s); }
  template <int W>
  [[gnu::always_inline]] static void load_word(Lane& l, const std::uint8_t* block) noexcept {
    sha256ni::load_word<W>(l, block);
  }
  template <int G>
  [[gnu::always_inline]] static void group(Lane& l) noexcept {
    sha256ni::group<G>(l);
  }
};

}  // namespace wireseal::crypto::detail
