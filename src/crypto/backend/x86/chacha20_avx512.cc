// ChaCha20 on AVX-512F (chacha20_avx512.h). Each of the four rows of the state is one register
// whose 128-bit lanes belong to four consecutive blocks, so a quarter round on all columns is
// four additions, four XORs and four VPROLDs for four blocks; the diagonal rounds rotate the
// rows' words with VPSHUFD. Groups of four blocks are independent: past the AEAD's first
// group, two run interleaved (eight blocks a step) with Poly1305 blocks between their rounds.
#include "backend/x86/chacha20_avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "backend/x86/poly1305.h"

namespace wireseal::crypto::detail {
namespace {

// GCC 12's unmasked forms of these intrinsics pass an undefined merge source and trip
// -Werror=uninitialized; the zero-masking forms with every lane selected are the same
// instructions (VPROLD, VPSHUFD, VSHUFI32X4, VBROADCASTI32X4).
constexpr __mmask16 kAll = 0xFFFF;

template <int N>
__m512i rol(__m512i x) noexcept {
  return _mm512_maskz_rol_epi32(kAll, x, N);
}
template <_MM_PERM_ENUM P>
__m512i shuffle_words(__m512i x) noexcept {
  return _mm512_maskz_shuffle_epi32(kAll, x, P);
}
template <int Imm>
__m512i shuffle_lanes(__m512i x, __m512i y) noexcept {
  return _mm512_maskz_shuffle_i32x4(kAll, x, y, Imm);
}
__m512i broadcast_lane(__m128i x) noexcept { return _mm512_maskz_broadcast_i32x4(kAll, x); }

struct Rows {
  __m512i a, b, c, d;
};

// add_xor_rotate is one step of the quarter round: x += y; z = (z ^ x) <<< N.
template <int N>
[[gnu::always_inline]] inline void add_xor_rotate(__m512i& x, __m512i y, __m512i& z) noexcept {
  x = _mm512_add_epi32(x, y);
  z = rol<N>(_mm512_xor_si512(z, x));
}

// Inlined so the rows stay in registers (a call passes them through memory). Each step runs
// over all G groups before the next, so the groups' chains interleave.
template <std::size_t G>
[[gnu::always_inline]] inline void quarter_rounds(Rows (&s)[G]) noexcept {
  for (Rows& r : s) {
    add_xor_rotate<16>(r.a, r.b, r.d);
  }
  for (Rows& r : s) {
    add_xor_rotate<12>(r.c, r.d, r.b);
  }
  for (Rows& r : s) {
    add_xor_rotate<8>(r.a, r.b, r.d);
  }
  for (Rows& r : s) {
    add_xor_rotate<7>(r.c, r.d, r.b);
  }
}

// NoFeed is keystream's between-rounds work when there is none.
struct NoFeed {
  void operator()() const noexcept {}
};

// keystream computes G groups of four blocks from counter on: group g, lane i is block
// counter + 4g + i. Each group's output is four registers in block order. `between` runs after
// every double round: scalar work placed there (Poly1305) overlaps the vector rounds.
template <std::size_t G, class Feed = NoFeed>
[[gnu::always_inline]] inline void keystream(const std::uint32_t key[8],
                                             const std::uint32_t nonce[3], std::uint32_t counter,
                                             __m512i (&out)[G][4], Feed between = {}) noexcept {
  const __m512i a0 = broadcast_lane(_mm_setr_epi32(0x61707865, 0x3320646e, 0x79622d32,
                                                   0x6b206574));  // "expand 32-byte k"
  const __m512i b0 = broadcast_lane(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(key)));  // NOLINT: intrinsic load
  const __m512i c0 = broadcast_lane(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(key + 4)));  // NOLINT: intrinsic load
  const __m512i d_base =
      broadcast_lane(_mm_setr_epi32(static_cast<int>(counter), static_cast<int>(nonce[0]),
                                    static_cast<int>(nonce[1]), static_cast<int>(nonce[2])));
  const __m512i lane_step = _mm512_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0);
  Rows s[G];
  __m512i d0[G];
  for (std::size_t g = 0; g < G; ++g) {
    d0[g] = _mm512_add_epi32(_mm512_add_epi32(d_base, lane_step),
                             _mm512_maskz_set1_epi32(0x1111, static_cast<int>(4 * g)));
    s[g] = {a0, b0, c0, d0[g]};
  }
  for (int round = 0; round < 10; ++round) {
    quarter_rounds<G>(s);
    for (Rows& r : s) {  // to diagonals: row b left by one word, c by two, d by three
      r.b = shuffle_words<_MM_PERM_ADCB>(r.b);
      r.c = shuffle_words<_MM_PERM_BADC>(r.c);
      r.d = shuffle_words<_MM_PERM_CBAD>(r.d);
    }
    quarter_rounds<G>(s);
    for (Rows& r : s) {  // and back
      r.b = shuffle_words<_MM_PERM_CBAD>(r.b);
      r.c = shuffle_words<_MM_PERM_BADC>(r.c);
      r.d = shuffle_words<_MM_PERM_ADCB>(r.d);
    }
    between();
  }
  for (std::size_t g = 0; g < G; ++g) {
    const __m512i a = _mm512_add_epi32(s[g].a, a0);
    const __m512i b = _mm512_add_epi32(s[g].b, b0);
    const __m512i c = _mm512_add_epi32(s[g].c, c0);
    const __m512i d = _mm512_add_epi32(s[g].d, d0[g]);
    // Lane i of a, b, c, d are block i's four rows: a 4x4 transpose of 128-bit lanes.
    const __m512i ab01 = shuffle_lanes<0x44>(a, b);  // a0 a1 b0 b1
    const __m512i cd01 = shuffle_lanes<0x44>(c, d);  // c0 c1 d0 d1
    const __m512i ab23 = shuffle_lanes<0xEE>(a, b);  // a2 a3 b2 b3
    const __m512i cd23 = shuffle_lanes<0xEE>(c, d);  // c2 c3 d2 d3
    out[g][0] = shuffle_lanes<0x88>(ab01, cd01);     // a0 b0 c0 d0
    out[g][1] = shuffle_lanes<0xDD>(ab01, cd01);     // a1 b1 c1 d1
    out[g][2] = shuffle_lanes<0x88>(ab23, cd23);
    out[g][3] = shuffle_lanes<0xDD>(ab23, cd23);
  }
}

// byte_mask selects the first min(n, 64) bytes of a register.
__mmask64 byte_mask(std::size_t n) noexcept {
  return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
}

// xor_block XORs n bytes of `in` with one keystream block into `out`; a partial block goes
// through masked loads and stores, which touch no byte past n.
[[gnu::always_inline]] inline void xor_block(__m512i ks, const std::uint8_t* in, std::uint8_t* out,
                                             std::size_t n) noexcept {
  if (n >= 64) {
    _mm512_storeu_si512(out, _mm512_xor_si512(_mm512_loadu_si512(in), ks));
  } else {
    const __mmask64 m = byte_mask(n);
    _mm512_mask_storeu_epi8(out, m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, in), ks));
  }
}

// xor_blocks XORs up to 64 * N bytes with the blocks ks[0..N).
template <std::size_t N>
[[gnu::always_inline]] inline void xor_blocks(const __m512i* ks, const std::uint8_t* in,
                                              std::uint8_t* out, std::size_t len) noexcept {
  for (std::size_t i = 0; i < N && len != 0; ++i) {
    const std::size_t n = std::min<std::size_t>(len, 64);
    xor_block(ks[i], in + 64 * i, out + 64 * i, n);
    len -= n;
  }
}

// lane_words returns 128-bit lane L of x as its two little-endian 64-bit words.
template <int L>
[[gnu::always_inline]] inline void lane_words(__m512i x, std::uint64_t& lo,
                                              std::uint64_t& hi) noexcept {
  const __m128i lane = _mm512_maskz_extracti32x4_epi32(0xF, x, L);
  lo = static_cast<std::uint64_t>(_mm_cvtsi128_si64(lane));
  hi = static_cast<std::uint64_t>(_mm_extract_epi64(lane, 1));
}

// absorb_padded absorbs `len` bytes zero-padded to whole blocks; the partial last block is
// read with a masked load, so nothing past data + len is touched and nothing goes through the
// stack.
void absorb_padded(Poly1305State& poly, const std::uint8_t* data, std::size_t len) noexcept {
  const std::size_t whole = len / 16;
  poly1305_blocks(poly, data, whole);
  const std::size_t rest = len % 16;
  if (rest != 0) {
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    lane_words<0>(_mm512_maskz_loadu_epi8(byte_mask(rest), data + 16 * whole), lo, hi);
    poly1305_block(poly, lo, hi);
  }
}

// PolyFeed absorbs a run of Poly1305 blocks a few at a time, one share per double round.
struct PolyFeed {
  Poly1305State* poly;
  const std::uint8_t* data;
  std::size_t left;
  std::size_t per_round;

  void operator()() noexcept {
    const std::size_t n = left < per_round ? left : per_round;
    poly1305_blocks(*poly, data, n);
    data += 16 * n;
    left -= n;
  }
};

constexpr std::size_t kHeadBytes = 192;  // blocks 1..3: the first group after the key block
constexpr std::size_t kChunk = 512;      // two groups, eight blocks, per step past the head

// seal_or_open_body handles bytes [192, len) eight blocks at a time, Poly1305 blocks running
// between the rounds. Sealing can absorb only ciphertext already written (the head, then the
// chunks before the current one); opening absorbs each chunk's ciphertext during its rounds,
// before the XOR overwrites it in place, and XORs the head (kept in registers) only after the
// first chunk has absorbed it.
void seal_or_open_body(const ChaChaPolyRecord& r, const __m512i (&head)[4], Poly1305State& poly,
                       bool sealing) noexcept {
  const std::uint8_t* mac = sealing ? r.out : r.in;
  std::size_t absorbed = 0;  // bytes of `mac` already in the Poly1305 state
  std::uint32_t counter = kHeadBytes / 64 + 1;
  for (std::size_t at = kHeadBytes; at < r.len; at += kChunk, counter += 8) {
    const std::size_t n = std::min(kChunk, r.len - at);
    const std::size_t target = (sealing ? at : at + n) / 16 * 16;
    const std::size_t blocks = (target - absorbed) / 16;
    PolyFeed feed{&poly, mac + absorbed, blocks, (blocks + 9) / 10};
    __m512i ks[2][4];
    keystream<2>(r.key, r.nonce, counter, ks, [&feed]() noexcept { feed(); });
    absorbed = target;
    if (!sealing) {
      if (at + n == r.len) {
        absorb_padded(poly, mac + absorbed, r.len - absorbed);
        absorbed = r.len;
      }
      if (at == kHeadBytes) {
        xor_blocks<3>(&head[1], r.in, r.out, kHeadBytes);
      }
    }
    xor_blocks<4>(ks[0], r.in + at, r.out + at, n);
    if (n > 256) {
      xor_blocks<4>(ks[1], r.in + at + 256, r.out + at + 256, n - 256);
    }
  }
  absorb_padded(poly, mac + absorbed, r.len - absorbed);
}

}  // namespace

void chacha20_poly1305_avx512(const ChaChaPolyRecord& r, Poly1305State& poly,
                              bool sealing) noexcept {
  __m512i head[1][4];  // block 0 (the Poly1305 key), then the keystream of bytes [0, 192)
  keystream<1>(r.key, r.nonce, 0, head);
  std::uint64_t key_words[4];
  lane_words<0>(head[0][0], key_words[0], key_words[1]);
  lane_words<1>(head[0][0], key_words[2], key_words[3]);
  poly1305_start(poly, key_words[0], key_words[1], key_words[2], key_words[3]);
  absorb_padded(poly, r.aad, r.aad_len);
  if (sealing) {
    xor_blocks<3>(&head[0][1], r.in, r.out, std::min(r.len, kHeadBytes));
  }
  if (r.len <= kHeadBytes) {
    if (!sealing) {
      absorb_padded(poly, r.in, r.len);
      xor_blocks<3>(&head[0][1], r.in, r.out, r.len);
    } else {
      absorb_padded(poly, r.out, r.len);
    }
  } else {
    seal_or_open_body(r, head[0], poly, sealing);
  }
  poly1305_block(poly, r.aad_len, r.len);  // the lengths block
}

}  // namespace wireseal::crypto::detail
