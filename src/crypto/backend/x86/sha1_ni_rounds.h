#pragma once
// SHA-1 compression rounds with SHA-NI, shared by the compression kernels (sha1_ni.cc) and the
// kernels that run them beside AES (cbc_sha_ni.cc). Include only from translation units
// compiled with -msha -msse4.1.
//
// The 80 rounds run as 20 groups of four (SHA1RNDS4). Group g uses message words W[4g..4g+3],
// held in one of four rotating registers; the schedule for the words of group h is
//   msg2(msg1(W[h-4], W[h-3]) ^ W[h-2], W[h-1])
// computed piecewise in groups h-3 (msg1), h-2 (xor) and h-1 (msg2). E for each group is
// derived from A of the state four rounds earlier (SHA1NEXTE), which is why two E registers
// alternate. Each group is a template so the round-function selector is a constant.
#include <immintrin.h>

#include <cstdint>

namespace wireseal::crypto::detail::sha1ni {

struct Lane {
  __m128i abcd;
  __m128i e[2];
  __m128i msg[4];
  __m128i abcd_save;
  __m128i e_save;
};

inline void load_state(Lane& l, const std::uint32_t* state) noexcept {
  l.abcd = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state)), 0x1b);
  l.e[0] = _mm_set_epi32(static_cast<int>(state[4]), 0, 0, 0);
}

inline void store_state(const Lane& l, std::uint32_t* state) noexcept {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_shuffle_epi32(l.abcd, 0x1b));
  state[4] = static_cast<std::uint32_t>(_mm_extract_epi32(l.e[0], 3));
}

// load_word<W> loads message word group W (bytes 16W..16W+15 of the block) into the schedule
// register the rounds read it from: groups 0..3 take the block's four words.
template <int W>
[[gnu::always_inline]] inline void load_word(Lane& l, const std::uint8_t* block) noexcept {
  static_assert(W >= 0 && W < 4);
  const __m128i bswap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
  l.msg[W] =
      _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * W)), bswap);
}

// group<G> runs rounds 4G..4G+3 and the message schedule work that belongs to them; the
// block's words must already be loaded (load_word) for G < 4.
template <int G>
[[gnu::always_inline]] inline void group(Lane& l) noexcept {
  constexpr int kFunc = G / 5;
  constexpr int cur = G % 4;
  constexpr int x = G % 2;  // E register used by this group; the other one saves ABCD
  if constexpr (G == 0) {
    l.abcd_save = l.abcd;
    l.e_save = l.e[0];
    l.e[0] = _mm_add_epi32(l.e[0], l.msg[0]);
  } else {
    l.e[x] = _mm_sha1nexte_epu32(l.e[x], l.msg[cur]);
  }
  l.e[1 - x] = l.abcd;
  if constexpr (G >= 3 && G <= 18) {
    l.msg[(G + 1) % 4] = _mm_sha1msg2_epu32(l.msg[(G + 1) % 4], l.msg[cur]);
  }
  l.abcd = _mm_sha1rnds4_epu32(l.abcd, l.e[x], kFunc);
  if constexpr (G >= 1 && G <= 16) {
    l.msg[(G + 3) % 4] = _mm_sha1msg1_epu32(l.msg[(G + 3) % 4], l.msg[cur]);
  }
  if constexpr (G >= 2 && G <= 17) {
    l.msg[(G + 2) % 4] = _mm_xor_si128(l.msg[(G + 2) % 4], l.msg[cur]);
  }
  if constexpr (G == 19) {
    l.e[0] = _mm_sha1nexte_epu32(l.e[0], l.e_save);
    l.abcd = _mm_add_epi32(l.abcd, l.abcd_save);
  }
}

}  // namespace wireseal::crypto::detail::sha1ni

namespace wireseal::crypto::detail {

// Sha1Rounds is this hash's rounds behind the interface the shared drivers use (sha_ni_lanes.h):
// the compression kernels and the stitched CBC kernel (cbc_sha_ni.cc). Forced inline, as the
// groups are: out of line, the state would go through memory.
struct Sha1Rounds {
  using Lane = sha1ni::Lane;
  static constexpr int kGroups = 20;
  static void load_state(Lane& l, const std::uint32_t* s) noexcept { sha1ni::load_state(l, s); }
  static void store_state(const Lane& l, std::uint32_t* s) noexcept { sha1ni::store_state(l, s); }
  template <int W>
  [[gnu::always_inline]] static void load_word(Lane& l, const std::uint8_t* block) noexcept {
    sha1ni::load_word<W>(l, block);
  }
  template <int G>
  [[gnu::always_inline]] static void group(Lane& l) noexcept {
    sha1ni::group<G>(l);
  }
};

}  // namespace wireseal::crypto::detail
