// SHA-1 compression with SHA-NI (see sha1_ni.h).
//
// The 80 rounds run as 20 groups of four (SHA1RNDS4). Group g uses message words W[4g..4g+3],
// held in one of four rotating registers; the schedule for the words of group h is
//   msg2(msg1(W[h-4], W[h-3]) ^ W[h-2], W[h-1])
// computed piecewise in groups h-3 (msg1), h-2 (xor) and h-1 (msg2). E for each group is
// derived from A of the state four rounds earlier (SHA1NEXTE), which is why two E registers
// alternate. Each group is a template so the round-function selector is a constant.
#include "backend/x86/sha1_ni.h"

#include <immintrin.h>

#include <utility>

namespace wireseal::crypto::detail {
namespace {

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

template <int G>
[[gnu::always_inline]] inline void group(Lane& l, const std::uint8_t* block) noexcept {
  constexpr int kFunc = G / 5;
  constexpr int cur = G % 4;
  constexpr int x = G % 2;  // E register used by this group; the other one saves ABCD
  if constexpr (G < 4) {
    const __m128i bswap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
    l.msg[cur] =
        _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * G)), bswap);
  }
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

// compress_lanes runs all 20 groups, group by group across the N lanes, so that each group's
// instructions for different lanes are independent and overlap in the pipeline.
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

template <int N>
inline void compress_n(std::uint32_t* const* states, const std::uint8_t* const* blocks) noexcept {
  Lane lanes[static_cast<std::size_t>(N)];
  for (int i = 0; i < N; ++i) {
    load_state(lanes[i], states[i]);
  }
  compress_lanes<N>(lanes, blocks, std::make_integer_sequence<int, 20>{});
  for (int i = 0; i < N; ++i) {
    store_state(lanes[i], states[i]);
  }
}

}  // namespace

void sha1_compress_ni(std::uint32_t state[5], const std::uint8_t* blocks,
                      std::size_t num_blocks) noexcept {
  Lane lane;
  load_state(lane, state);
  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::uint8_t* block = blocks + 64 * b;
    compress_lanes<1>(&lane, &block, std::make_integer_sequence<int, 20>{});
  }
  store_state(lane, state);
}

void sha1_compress_ni_keep(std::uint32_t state[5], const std::uint8_t* blocks,
                           std::size_t num_blocks, const std::uint32_t* keep,
                           std::uint32_t kept[5]) noexcept {
  Lane lane;
  load_state(lane, state);
  Lane held;  // the kept state, in the same layout (masking commutes with it)
  load_state(held, kept);
  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::uint8_t* block = blocks + 64 * b;
    compress_lanes<1>(&lane, &block, std::make_integer_sequence<int, 20>{});
    const __m128i mask = _mm_set1_epi32(static_cast<int>(keep[b]));
    held.abcd = _mm_or_si128(held.abcd, _mm_and_si128(lane.abcd, mask));
    held.e[0] = _mm_or_si128(held.e[0], _mm_and_si128(lane.e[0], mask));
  }
  store_state(lane, state);
  store_state(held, kept);
}

void sha1_compress_ni_x2(std::uint32_t* const states[2],
                         const std::uint8_t* const blocks[2]) noexcept {
  compress_n<2>(states, blocks);
}

}  // namespace wireseal::crypto::detail
