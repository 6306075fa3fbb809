// SHA-256 compression with SHA-NI (see sha256_ni.h); the rounds are in sha256_ni_rounds.h.
#include "backend/x86/sha256_ni.h"

#include "backend/x86/sha256_ni_rounds.h"
#include "backend/x86/sha_ni_lanes.h"

namespace wireseal::crypto::detail {

using sha256ni::Lane;
using sha256ni::load_state;
using sha256ni::store_state;

void sha256_compress_ni(std::uint32_t state[8], const std::uint8_t* blocks,
                        std::size_t num_blocks) noexcept {
  Lane lane;
  load_state(lane, state);
  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::uint8_t* block = blocks + 64 * b;
    compress_lanes<Sha256Rounds, 1>(&lane, &block);
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
    compress_lanes<Sha256Rounds, 1>(&lane, &block);
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
  compress_lanes<Sha256Rounds, 2>(lanes, blocks);
  store_state(lanes[0], states[0]);
  store_state(lanes[1], states[1]);
}

}  // namespace wireseal::crypto::detail
