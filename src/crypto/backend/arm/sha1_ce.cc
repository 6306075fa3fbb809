// SHA-1 compression with the ARMv8 SHA-1 instructions (see sha_ce.h).
//
// ABCD lives in one vector, E in a scalar. The 80 rounds run as 20 quads: SHA1C (rounds
// 0-19), SHA1P (20-39, 60-79) or SHA1M (40-59) each run four rounds on four K+W words, and
// SHA1H gives the next quad's E (A rotated by 30) from this quad's A. The schedule for quad
// q+4 is built right after quad q has used its words (SHA1SU0, SHA1SU1), in one of four
// rotating registers. Lanes are independent chains run round by round side by side.
#include <arm_neon.h>

#include <utility>

#include "backend/arm/sha_ce.h"

namespace wireseal::crypto::detail {
namespace {

struct Lane {
  uint32x4_t abcd;
  std::uint32_t e;
  uint32x4_t w[4];
};

inline uint32x4_t load_be_words(const std::uint8_t* p) noexcept {
  return vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p)));
}

// quad runs rounds 4q..4q+3 of every lane, then extends the schedule by one quad.
template <int Q, std::size_t N>
inline void quad(Lane* lanes) noexcept {
  constexpr std::uint32_t kK = Q < 5    ? 0x5a827999
                               : Q < 10 ? 0x6ed9eba1
                               : Q < 15 ? 0x8f1bbcdc
                                        : 0xca62c1d6;
  for (std::size_t i = 0; i < N; ++i) {
    Lane& l = lanes[i];
    const uint32x4_t wk = vaddq_u32(l.w[Q % 4], vdupq_n_u32(kK));
    const std::uint32_t next_e = vsha1h_u32(vgetq_lane_u32(l.abcd, 0));
    if constexpr (Q < 5) {
      l.abcd = vsha1cq_u32(l.abcd, l.e, wk);
    } else if constexpr (Q >= 10 && Q < 15) {
      l.abcd = vsha1mq_u32(l.abcd, l.e, wk);
    } else {
      l.abcd = vsha1pq_u32(l.abcd, l.e, wk);
    }
    l.e = next_e;
    if constexpr (Q < 16) {
      l.w[Q % 4] = vsha1su1q_u32(vsha1su0q_u32(l.w[Q % 4], l.w[(Q + 1) % 4], l.w[(Q + 2) % 4]),
                                 l.w[(Q + 3) % 4]);
    }
  }
}

template <std::size_t N, int... Q>
inline void all_quads(Lane* lanes, std::integer_sequence<int, Q...> /*unused*/) noexcept {
  (quad<Q, N>(lanes), ...);
}

// compress_block runs one block per lane into the lanes' chaining values.
template <std::size_t N>
inline void compress_block(Lane* lanes, const std::uint8_t* const* blocks) noexcept {
  uint32x4_t saved_abcd[N];
  std::uint32_t saved_e[N];
  for (std::size_t i = 0; i < N; ++i) {
    saved_abcd[i] = lanes[i].abcd;
    saved_e[i] = lanes[i].e;
    for (int j = 0; j < 4; ++j) {
      lanes[i].w[j] = load_be_words(blocks[i] + 16 * j);
    }
  }
  all_quads<N>(lanes, std::make_integer_sequence<int, 20>{});
  for (std::size_t i = 0; i < N; ++i) {
    lanes[i].abcd = vaddq_u32(lanes[i].abcd, saved_abcd[i]);
    lanes[i].e += saved_e[i];
  }
}

}  // namespace

void sha1_compress_ce(std::uint32_t* state, const std::uint8_t* blocks,
                      std::size_t num_blocks) noexcept {
  Lane lane{vld1q_u32(state), state[4], {}};
  for (; num_blocks > 0; --num_blocks, blocks += 64) {
    compress_block<1>(&lane, &blocks);
  }
  vst1q_u32(state, lane.abcd);
  state[4] = lane.e;
}

void sha1_compress_ce_x2(std::uint32_t* const* states, const std::uint8_t* const* blocks) noexcept {
  Lane lanes[2] = {{vld1q_u32(states[0]), states[0][4], {}},
                   {vld1q_u32(states[1]), states[1][4], {}}};
  compress_block<2>(lanes, blocks);
  for (int i = 0; i < 2; ++i) {
    vst1q_u32(states[i], lanes[i].abcd);
    states[i][4] = lanes[i].e;
  }
}

}  // namespace wireseal::crypto::detail
