// SHA-1 compression with the ARMv8 SHA-1 instructions (see sha_ce.h).
//
// ABCD lives in one vector, E in lane 0 of another (aarch64: an S register). The 80 rounds
// run as 20 quads: SHA1C (rounds 0-19), SHA1P (20-39, 60-79) or SHA1M (40-59) each run four
// rounds on four K+W words, and SHA1H gives the next quad's E (A rotated by 30) from this
// quad's A. The schedule for quad q+4 is built right after quad q has used its words (SHA1SU0,
// SHA1SU1), in one of four rotating registers. Lanes are independent chains run round by round
// side by side.
#include <arm_neon.h>

#include <utility>

#include "backend/arm/sha_ce.h"

namespace wireseal::crypto::detail {
namespace {

// E's register. The intrinsics take and give E as a 32-bit scalar, which on aarch64 stays in
// an S register, but GCC 12 moves it through a core register on AArch32 (four transfers a
// quad), so there E is a vector used in lane 0 and the instructions are written out; the
// AArch32 forms read E from the low word of a Q register and SHA1H zeroes the rest.
#if defined(__aarch64__)
using EWord = std::uint32_t;
inline EWord load_e(const std::uint32_t* state) noexcept { return state[4]; }
inline void store_e(std::uint32_t* state, EWord e) noexcept { state[4] = e; }
inline EWord add_e(EWord a, EWord b) noexcept { return a + b; }
inline EWord next_e(uint32x4_t abcd) noexcept { return vsha1h_u32(vgetq_lane_u32(abcd, 0)); }
inline uint32x4_t choose(uint32x4_t abcd, EWord e, uint32x4_t wk) noexcept {
  return vsha1cq_u32(abcd, e, wk);
}
inline uint32x4_t parity(uint32x4_t abcd, EWord e, uint32x4_t wk) noexcept {
  return vsha1pq_u32(abcd, e, wk);
}
inline uint32x4_t majority(uint32x4_t abcd, EWord e, uint32x4_t wk) noexcept {
  return vsha1mq_u32(abcd, e, wk);
}
#else
using EWord = uint32x4_t;
inline EWord load_e(const std::uint32_t* state) noexcept { return vld1q_dup_u32(state + 4); }
inline void store_e(std::uint32_t* state, EWord e) noexcept { vst1q_lane_u32(state + 4, e, 0); }
inline EWord add_e(EWord a, EWord b) noexcept { return vaddq_u32(a, b); }
inline EWord next_e(uint32x4_t abcd) noexcept {
  uint32x4_t e;
  __asm__("sha1h.32 %q0, %q1" : "=w"(e) : "w"(abcd));
  return e;
}
inline uint32x4_t choose(uint32x4_t abcd, EWord e, uint32x4_t wk) noexcept {
  __asm__("sha1c.32 %q0, %q1, %q2" : "+w"(abcd) : "w"(e), "w"(wk));
  return abcd;
}
inline uint32x4_t parity(uint32x4_t abcd, EWord e, uint32x4_t wk) noexcept {
  __asm__("sha1p.32 %q0, %q1, %q2" : "+w"(abcd) : "w"(e), "w"(wk));
  return abcd;
}
inline uint32x4_t majority(uint32x4_t abcd, EWord e, uint32x4_t wk) noexcept {
  __asm__("sha1m.32 %q0, %q1, %q2" : "+w"(abcd) : "w"(e), "w"(wk));
  return abcd;
}
#endif

struct Lane {
  uint32x4_t abcd;
  EWord e;
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
    const EWord e = next_e(l.abcd);
    if constexpr (Q < 5) {
      l.abcd = choose(l.abcd, l.e, wk);
    } else if constexpr (Q >= 10 && Q < 15) {
      l.abcd = majority(l.abcd, l.e, wk);
    } else {
      l.abcd = parity(l.abcd, l.e, wk);
    }
    l.e = e;
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
  EWord saved_e[N];
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
    lanes[i].e = add_e(lanes[i].e, saved_e[i]);
  }
}

}  // namespace

void sha1_compress_ce(std::uint32_t* state, const std::uint8_t* blocks,
                      std::size_t num_blocks) noexcept {
  Lane lane{vld1q_u32(state), load_e(state), {}};
  for (; num_blocks > 0; --num_blocks, blocks += 64) {
    compress_block<1>(&lane, &blocks);
  }
  vst1q_u32(state, lane.abcd);
  store_e(state, lane.e);
}

void sha1_compress_ce_x2(std::uint32_t* const* states, const std::uint8_t* const* blocks) noexcept {
  Lane lanes[2] = {{vld1q_u32(states[0]), load_e(states[0]), {}},
                   {vld1q_u32(states[1]), load_e(states[1]), {}}};
  compress_block<2>(lanes, blocks);
  for (int i = 0; i < 2; ++i) {
    vst1q_u32(states[i], lanes[i].abcd);
    store_e(states[i], lanes[i].e);
  }
}

}  // namespace wireseal::crypto::detail
