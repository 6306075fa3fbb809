// SHA-256 compression with the ARMv8 SHA-256 instructions (see sha_ce.h).
//
// The state lives as ABCD / EFGH in two vectors, FIPS 180-4's order, which is what SHA256H
// and SHA256H2 take. The 64 rounds run as 16 quads: SHA256H and SHA256H2 each advance one
// half by four rounds of K+W words. The schedule for quad q+4 is built right after quad q
// has used its words (SHA256SU0, SHA256SU1), in one of four rotating registers. Lanes are
// independent chains run quad by quad side by side.
#include <arm_neon.h>

#include <utility>

#include "backend/arm/sha_ce.h"
#include "backend/portable/sha256_constants.h"

namespace wireseal::crypto::detail {
namespace {

struct Lane {
  uint32x4_t abcd;
  uint32x4_t efgh;
  uint32x4_t w[4];
};

inline uint32x4_t load_be_words(const std::uint8_t* p) noexcept {
  return vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p)));
}

template <int Q, std::size_t N>
inline void quad(Lane* lanes) noexcept {
  const uint32x4_t k = vld1q_u32(kSha256K + 4 * Q);
  for (std::size_t i = 0; i < N; ++i) {
    Lane& l = lanes[i];
    const uint32x4_t wk = vaddq_u32(l.w[Q % 4], k);
    const uint32x4_t abcd = l.abcd;
    l.abcd = vsha256hq_u32(l.abcd, l.efgh, wk);
    l.efgh = vsha256h2q_u32(l.efgh, abcd, wk);
    if constexpr (Q < 12) {
      l.w[Q % 4] = vsha256su1q_u32(vsha256su0q_u32(l.w[Q % 4], l.w[(Q + 1) % 4]), l.w[(Q + 2) % 4],
                                   l.w[(Q + 3) % 4]);
    }
  }
}

template <std::size_t N, int... Q>
inline void all_quads(Lane* lanes, std::integer_sequence<int, Q...> /*unused*/) noexcept {
  (quad<Q, N>(lanes), ...);
}

template <std::size_t N>
inline void compress_block(Lane* lanes, const std::uint8_t* const* blocks) noexcept {
  uint32x4_t saved[N][2];
  for (std::size_t i = 0; i < N; ++i) {
    saved[i][0] = lanes[i].abcd;
    saved[i][1] = lanes[i].efgh;
    for (int j = 0; j < 4; ++j) {
      lanes[i].w[j] = load_be_words(blocks[i] + 16 * j);
    }
  }
  all_quads<N>(lanes, std::make_integer_sequence<int, 16>{});
  for (std::size_t i = 0; i < N; ++i) {
    lanes[i].abcd = vaddq_u32(lanes[i].abcd, saved[i][0]);
    lanes[i].efgh = vaddq_u32(lanes[i].efgh, saved[i][1]);
  }
}

}  // namespace

void sha256_compress_ce(std::uint32_t* state, const std::uint8_t* blocks,
                        std::size_t num_blocks) noexcept {
  Lane lane{vld1q_u32(state), vld1q_u32(state + 4), {}};
  for (; num_blocks > 0; --num_blocks, blocks += 64) {
    compress_block<1>(&lane, &blocks);
  }
  vst1q_u32(state, lane.abcd);
  vst1q_u32(state + 4, lane.efgh);
}

void sha256_compress_ce_x2(std::uint32_t* const* states,
                           const std::uint8_t* const* blocks) noexcept {
  Lane lanes[2] = {{vld1q_u32(states[0]), vld1q_u32(states[0] + 4), {}},
                   {vld1q_u32(states[1]), vld1q_u32(states[1] + 4), {}}};
  compress_block<2>(lanes, blocks);
  for (int i = 0; i < 2; ++i) {
    vst1q_u32(states[i], lanes[i].abcd);
    vst1q_u32(states[i] + 4, lanes[i].efgh);
  }
}

}  // namespace wireseal::crypto::detail
