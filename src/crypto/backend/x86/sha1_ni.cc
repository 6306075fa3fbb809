// SHA-1 compression with SHA-NI (see sha1_ni.h); the rounds are in sha1_ni_rounds.h.
#include "backend/x86/sha1_ni.h"

#include "backend/x86/sha1_ni_rounds.h"
#include "backend/x86/sha_ni_lanes.h"

namespace wireseal::crypto::detail {
namespace {

using sha1ni::Lane;
using sha1ni::load_state;
using sha1ni::store_state;

template <int N>
inline void compress_n(std::uint32_t* const* states, const std::uint8_t* const* blocks) noexcept {
  Lane lanes[static_cast<std::size_t>(N)];
  for (int i = 0; i < N; ++i) {
    load_state(lanes[i], states[i]);
  }
  compress_lanes<Sha1Rounds, N>(lanes, blocks);
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
    compress_lanes<Sha1Rounds, 1>(&lane, &block);
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
    compress_lanes<Sha1Rounds, 1>(&lane, &block);
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
