// SHA-256 compression with SHA-NI (see sha256_ni.h).
//
// The state lives as ABEF / CDGH in two registers (the layout SHA256RNDS2 wants). The 64
// rounds run as 16 groups of four: two SHA256RNDS2 per group, each taking two K+W words. The
// message schedule for group h+4 is built in groups h+1 (msg1) and h+3 (alignr, add, msg2),
// in one of four rotating registers. Groups are templates so indices are constants, and forced
// inline: out of line, the state would go through memory between blocks.
#include "backend/x86/sha256_ni.h"

#include <immintrin.h>

#include <utility>

#include "backend/portable/sha256_constants.h"

namespace wireseal::crypto::detail {
namespace {

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

template <int G>
[[gnu::always_inline]] inline void group(Lane& l, const std::uint8_t* block) noexcept {
  constexpr int cur = G % 4;
  if constexpr (G < 4) {
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    l.msg[cur] =
        _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * G)), bswap);
  }
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

template <int N, int... G>
[[gnu::always_inline]] inline void compress_lanes(Lane* lanes, const std::uint8_t* const* blocks,
                                                  std::integer_sequence<int, G...>) noexcept {
  (
      [&] {
        for (int i = 0; i < N; ++i) {
          group<G>(lanes[i], blocks[i]);
        }
      }(),
      ...);
}

}  // namespace

void sha256_compress_ni(std::uint32_t state[8], const std::uint8_t* blocks,
                        std::size_t num_blocks) noexcept {
  Lane lane;
  load_state(lane, state);
  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::uint8_t* block = blocks + 64 * b;
    compress_lanes<1>(&lane, &block, std::make_integer_sequence<int, 16>{});
  }
  store_state(lane, state);
}

void sha256_compress_ni_keep(std::uint32_t state[8], const std::uint8_t* blocks,
                             std::size_t num_blocks, const std::uint32_t* keep,
                             std::uint32_t kept[8]) noexcept {
  Lane lane;
  load_state(lane, state);
  Lane held;  // the kept state, in the same ABEF / CDGH layout (masking commutes with it)
  load_state(held, kept);
  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::uint8_t* block = blocks + 64 * b;
    compress_lanes<1>(&lane, &block, std::make_integer_sequence<int, 16>{});
    const __m128i mask = _mm_set1_epi32(static_cast<int>(keep[b]));
    held.state0 = _mm_or_si128(held.state0, _mm_and_si128(lane.state0, mask));
    held.state1 = _mm_or_si128(held.state1, _mm_and_si128(lane.state1, mask));
  }
  store_state(lane, state);
  store_state(held, kept);
}

void sha256_compress_ni_x2(std::uint32_t* const states[2],
                           const std::uint8_t* const blocks[2]) noexcept {
  Lane lanes[2];
  load_state(lanes[0], states[0]);
  load_state(lanes[1], states[1]);
  compress_lanes<2>(lanes, blocks, std::make_integer_sequence<int, 16>{});
  store_state(lanes[0], states[0]);
  store_state(lanes[1], states[1]);
}

}  // namespace wireseal::crypto::detail
