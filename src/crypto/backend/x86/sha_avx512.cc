// Sixteen-lane SHA-1 and SHA-256 (sha_avx512.h). Each 512-bit register holds one 32-bit
// quantity of all sixteen messages, so the rounds are FIPS 180-4's, written once on vectors:
// VPROLD/VPRORD rotate, VPTERNLOGD computes Ch, Maj, Parity and the three-way XORs in one
// instruction each. The blocks arrive one per lane and are transposed in registers.
#include "backend/x86/sha_avx512.h"

#include <immintrin.h>

#include "backend/portable/sha256_constants.h"

namespace wireseal::crypto::detail {
namespace {

// VPTERNLOGD truth tables for (a, b, c) operands.
constexpr int kXor3 = 0x96;    // a ^ b ^ c
constexpr int kChoose = 0xCA;  // a ? b : c (SHA's Ch)
constexpr int kMajority = 0xE8;

// transpose_step swaps the off-diagonal s x s blocks of each pair of rows (i, i + s): after
// the four steps s = 8, 4, 2, 1, row j holds what was column j.
template <int S>
void transpose_step(__m512i rows[16]) noexcept {
  alignas(64) std::uint32_t low_idx[16];
  alignas(64) std::uint32_t high_idx[16];
  for (std::uint32_t j = 0; j < 16; ++j) {
    const bool upper = (j & S) != 0;
    low_idx[j] = upper ? 16 + (j ^ S) : j;   // row i keeps its low half, gains the pair's
    high_idx[j] = upper ? 16 + j : (j | S);  // row i + s gains row i's high half
  }
  const __m512i lo = _mm512_load_si512(low_idx);
  const __m512i hi = _mm512_load_si512(high_idx);
  for (int i = 0; i < 16; ++i) {
    if ((i & S) == 0) {
      const __m512i a = rows[i];
      const __m512i b = rows[i + S];
      rows[i] = _mm512_permutex2var_epi32(a, lo, b);
      rows[i + S] = _mm512_permutex2var_epi32(a, hi, b);
    }
  }
}

// load_words sets w[t] to big-endian word t of every lane's block.
void load_words(const std::uint8_t* const* blocks, __m512i w[16]) noexcept {
  const __m512i swap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
  for (int lane = 0; lane < 16; ++lane) {
    w[lane] = _mm512_shuffle_epi8(_mm512_loadu_si512(blocks[lane]), swap);
  }
  transpose_step<8>(w);
  transpose_step<4>(w);
  transpose_step<2>(w);
  transpose_step<1>(w);
}

// rol / ror rotate each lane, shr shifts it. GCC 12's unmasked _mm512_rol_epi32 (and the shifts)
// pass an undefined vector as its merge source and trips -Werror=uninitialized; the zero-masking
// form with every lane selected is the same VPROLD / VPRORD.
template <int N>
__m512i rol(__m512i x) noexcept {
  return _mm512_maskz_rol_epi32(0xFFFF, x, N);
}
template <int N>
__m512i ror(__m512i x) noexcept {
  return _mm512_maskz_ror_epi32(0xFFFF, x, N);
}
template <unsigned N>
__m512i shr(__m512i x) noexcept {
  return _mm512_maskz_srli_epi32(0xFFFF, x, N);
}

__m512i add(__m512i a, __m512i b) noexcept { return _mm512_add_epi32(a, b); }
__m512i xor3(__m512i a, __m512i b, __m512i c) noexcept {
  return _mm512_ternarylogic_epi32(a, b, c, kXor3);
}

// ---- SHA-1 ----

// sha1_schedule returns W[t] for t >= 16 and stores it in the 16-word ring.
__m512i sha1_schedule(__m512i w[16], int t) noexcept {
  const __m512i x =
      _mm512_xor_si512(xor3(w[(t - 3) & 15], w[(t - 8) & 15], w[(t - 14) & 15]), w[t & 15]);
  w[t & 15] = rol<1>(x);
  return w[t & 15];
}

template <int F>
__m512i sha1_f(__m512i b, __m512i c, __m512i d) noexcept {
  return _mm512_ternarylogic_epi32(b, c, d, F);
}

// Five rounds with the registers' roles rotated in place of moves.
template <int F, std::uint32_t K>
void sha1_five_rounds(__m512i& a, __m512i& b, __m512i& c, __m512i& d, __m512i& e, __m512i w[16],
                      int t) noexcept {
  const __m512i k = _mm512_set1_epi32(static_cast<int>(K));
  auto round = [&](__m512i& ra, __m512i& rb, __m512i rc, __m512i rd, __m512i& re, int i) {
    const __m512i wt = i < 16 ? w[i] : sha1_schedule(w, i);
    // Only a's rotation and the last addition wait for the previous round: e, W + K and f
    // (whose inputs are older) are summed first.
    re = add(add(add(re, add(wt, k)), sha1_f<F>(rb, rc, rd)), rol<5>(ra));
    rb = rol<30>(rb);
  };
  round(a, b, c, d, e, t);
  round(e, a, b, c, d, t + 1);
  round(d, e, a, b, c, t + 2);
  round(c, d, e, a, b, t + 3);
  round(b, c, d, e, a, t + 4);
}

// Twenty rounds sharing a function and constant: a roles' rotation every five.
template <int F, std::uint32_t K>
void sha1_twenty_rounds(__m512i& a, __m512i& b, __m512i& c, __m512i& d, __m512i& e, __m512i w[16],
                        int first) noexcept {
#pragma GCC unroll 4
  for (int t = first; t < first + 20; t += 5) {
    sha1_five_rounds<F, K>(a, b, c, d, e, w, t);
  }
}

// ---- SHA-256 ----

__m512i sha256_schedule(__m512i w[16], int t) noexcept {
  const __m512i w15 = w[(t - 15) & 15];
  const __m512i w2 = w[(t - 2) & 15];
  const __m512i s0 = xor3(ror<7>(w15), ror<18>(w15), shr<3>(w15));
  const __m512i s1 = xor3(ror<17>(w2), ror<19>(w2), shr<10>(w2));
  w[t & 15] = add(add(w[t & 15], s0), add(w[(t - 7) & 15], s1));
  return w[t & 15];
}

// One round on registers named by role; the caller rotates the roles (h becomes the new a,
// d the new e).
void sha256_round(__m512i a, __m512i b, __m512i c, __m512i& d, __m512i e, __m512i f, __m512i g,
                  __m512i& h, __m512i wt, int t) noexcept {
  const __m512i s1 = xor3(ror<6>(e), ror<11>(e), ror<25>(e));
  const __m512i t1 =
      add(add(h, s1), add(_mm512_ternarylogic_epi32(e, f, g, kChoose),
                          add(wt, _mm512_set1_epi32(static_cast<int>(kSha256K[t])))));
  const __m512i s0 = xor3(ror<2>(a), ror<13>(a), ror<22>(a));
  d = add(d, t1);
  h = add(t1, add(s0, _mm512_ternarylogic_epi32(a, b, c, kMajority)));
}

void sha256_eight_rounds(__m512i s[8], __m512i w[16], int t) noexcept {
  for (int i = 0; i < 8; ++i) {
    const int r = t + i;
    const __m512i wt = r < 16 ? w[r] : sha256_schedule(w, r);
    // Round i's a..h live at s[(8 - i) % 8 ...]: rotating indices instead of registers.
    sha256_round(s[(8 - i) & 7], s[(9 - i) & 7], s[(10 - i) & 7], s[(11 - i) & 7], s[(12 - i) & 7],
                 s[(13 - i) & 7], s[(14 - i) & 7], s[(15 - i) & 7], wt, r);
  }
}

// store_active adds the round output to the saved state of the active lanes only.
void store_active(std::uint32_t* state, const __m512i* out, int words,
                  std::uint32_t active) noexcept {
  const auto mask = static_cast<__mmask16>(active);
  for (int i = 0; i < words; ++i) {
    const __m512i old = _mm512_loadu_si512(state + 16 * i);
    _mm512_storeu_si512(state + 16 * i, _mm512_mask_add_epi32(old, mask, old, out[i]));
  }
}

}  // namespace

void sha1_compress_avx512_x16(std::uint32_t* state, const std::uint8_t* const* blocks,
                              std::uint32_t active) noexcept {
  __m512i w[16];
  load_words(blocks, w);
  __m512i a = _mm512_loadu_si512(state);
  __m512i b = _mm512_loadu_si512(state + 16);
  __m512i c = _mm512_loadu_si512(state + 32);
  __m512i d = _mm512_loadu_si512(state + 48);
  __m512i e = _mm512_loadu_si512(state + 64);
  sha1_twenty_rounds<kChoose, 0x5a827999>(a, b, c, d, e, w, 0);
  sha1_twenty_rounds<kXor3, 0x6ed9eba1>(a, b, c, d, e, w, 20);
  sha1_twenty_rounds<kMajority, 0x8f1bbcdc>(a, b, c, d, e, w, 40);
  sha1_twenty_rounds<kXor3, 0xca62c1d6>(a, b, c, d, e, w, 60);
  const __m512i out[5] = {a, b, c, d, e};
  store_active(state, out, 5, active);
}

void sha256_compress_avx512_x16(std::uint32_t* state, const std::uint8_t* const* blocks,
                                std::uint32_t active) noexcept {
  __m512i w[16];
  load_words(blocks, w);
  __m512i s[8];
  for (int i = 0; i < 8; ++i) {
    s[i] = _mm512_loadu_si512(state + 16 * i);
  }
#pragma GCC unroll 8
  for (int t = 0; t < 64; t += 8) {
    sha256_eight_rounds(s, w, t);
  }
  store_active(state, s, 8, active);
}

}  // namespace wireseal::crypto::detail
