// Bit-sliced AES encryption of eight blocks at once, and AES-CTR over it.
//
// Why it exists: on ARM cores with NEON but without the crypto extensions, OpenSSL 3.0 runs
// its bit-sliced NEON AES only for CTR calls of eight blocks or more; anything shorter (SRTP
// audio and RTCP packets, the last blocks' counter set-up) goes through its T-table AES, whose
// memory lookups are indexed by key XOR data: a cache-timing channel. Here every call, of any
// length, is the same straight-line code over registers; no memory address depends on the key
// or the data.
//
// Layout (Käsper and Schwabe's): plane[i] holds bit i of every byte of the eight blocks. Byte j
// of a plane is AES state byte j (column-major: row j % 4, column j / 4), and its bit k is
// block k's. In that form
//   SubBytes    is Boyar and Peralta's 128-gate depth-16 circuit over the eight planes
//               (32 + 2 ANDs; the S-box's affine constant 0x63 is folded into the round keys);
//   ShiftRows   is one byte shuffle of each plane;
//   MixColumns  is rotations of the bytes within each plane's 32-bit columns, and XORs;
//   AddRoundKey is eight XORs with the round key spread to planes (0x00 or 0xff per byte).
// Moving eight blocks into planes and back is an 8x8 bit transposition within every byte
// position, three rounds of masked swaps.
//
// The vector types are the compilers' generic ones (GCC and Clang): 16-byte registers, NEON on
// ARM and SSE2 on x86, where the tests compare this file with OpenSSL on every size.
#include "backend/portable/aes_bitsliced.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include "backend/portable/aes_key_schedule.h"
#include "backend/portable/counter128.h"
#include "common/ct.h"

#if defined(__ARM_NEON)
#include <arm_neon.h>
#endif

namespace wireseal::crypto::detail {
namespace {

using V8 = std::uint8_t __attribute__((vector_size(16)));
using V16 = std::uint16_t __attribute__((vector_size(16)));
using V32 = std::uint32_t __attribute__((vector_size(16)));

constexpr int kPlanes = 8;
constexpr int kBlocks = 8;  // blocks per call of the cipher: one per bit of a plane's byte
constexpr std::size_t kBatchBytes = 16 * kBlocks;
constexpr int kMaxRounds = 14;

// load and store are single NEON instructions (vld1/vst1, any alignment) where NEON exists.
[[gnu::always_inline]] inline V8 load(const std::uint8_t* p) noexcept {
#if defined(__ARM_NEON)
  return std::bit_cast<V8>(vld1q_u8(p));
#else
  V8 v;
  std::memcpy(&v, p, 16);
  return v;
#endif
}

[[gnu::always_inline]] inline void store(std::uint8_t* p, V8 v) noexcept {
#if defined(__ARM_NEON)
  vst1q_u8(p, std::bit_cast<uint8x16_t>(v));
#else
  std::memcpy(p, &v, 16);
#endif
}

// swap_bits exchanges the bits of `hi` under `mask` with the bits of `lo` N places above them:
// one round of the 8x8 transposition.
template <int N>
[[gnu::always_inline]] inline void swap_bits(V8& lo, V8& hi, std::uint8_t mask) noexcept {
#if defined(__ARM_NEON)
  // Two shifts and two bit-selects (VBSL/VBIT) instead of the six operations below.
  const uint8x16_t l = std::bit_cast<uint8x16_t>(lo);
  const uint8x16_t h = std::bit_cast<uint8x16_t>(hi);
  const uint8x16_t low_mask = vdupq_n_u8(mask);
  const uint8x16_t high_mask = vdupq_n_u8(static_cast<std::uint8_t>(mask << N));
  hi = std::bit_cast<V8>(vbslq_u8(low_mask, vshrq_n_u8(l, N), h));
  lo = std::bit_cast<V8>(vbslq_u8(high_mask, vshlq_n_u8(h, N), l));
#else
  const V8 t = ((lo >> N) ^ hi) & mask;
  hi ^= t;
  lo ^= static_cast<V8>(t << N);
#endif
}

// transpose turns eight blocks into eight planes, and (being its own inverse) back.
[[gnu::always_inline]] inline void transpose(V8* x) noexcept {
  for (int k = 0; k < 8; k += 2) {
    swap_bits<1>(x[k], x[k + 1], 0x55);
  }
  for (int k : {0, 1, 4, 5}) {
    swap_bits<2>(x[k], x[k + 2], 0x33);
  }
  for (int k = 0; k < 4; ++k) {
    swap_bits<4>(x[k], x[k + 4], 0x0f);
  }
}

// sub_bytes is the S-box circuit of Boyar and Peralta, "A depth-16 circuit for the AES S-box"
// (2011), on planes: its inputs U0..U7 and outputs S0..S7 run from the most significant bit,
// so U_j is plane 7 - j. Its four XNORs are XORs here; the missing NOTs are the S-box's 0x63,
// which the round keys carry instead (expand_planes).
[[gnu::always_inline]] inline void sub_bytes(V8* b) noexcept {
  const V8 u0 = b[7], u1 = b[6], u2 = b[5], u3 = b[4];
  const V8 u4 = b[3], u5 = b[2], u6 = b[1], u7 = b[0];
  // Top linear layer.
  const V8 t1 = u0 ^ u3, t2 = u0 ^ u5, t3 = u0 ^ u6, t4 = u3 ^ u5, t5 = u4 ^ u6;
  const V8 t6 = t1 ^ t5, t7 = u1 ^ u2, t8 = u7 ^ t6, t9 = u7 ^ t7, t10 = t6 ^ t7;
  const V8 t11 = u1 ^ u5, t12 = u2 ^ u5, t13 = t3 ^ t4, t14 = t6 ^ t11, t15 = t5 ^ t11;
  const V8 t16 = t5 ^ t12, t17 = t9 ^ t16, t18 = u3 ^ u7, t19 = t7 ^ t18, t20 = t1 ^ t19;
  const V8 t21 = u6 ^ u7, t22 = t7 ^ t21, t23 = t2 ^ t22, t24 = t2 ^ t10, t25 = t20 ^ t17;
  const V8 t26 = t3 ^ t16, t27 = t1 ^ t12;
  // Middle, non-linear layer: inversion in GF(2^4)^2.
  const V8 m1 = t13 & t6, m2 = t23 & t8, m3 = t14 ^ m1, m4 = t19 & u7, m5 = m4 ^ m1;
  const V8 m6 = t3 & t16, m7 = t22 & t9, m8 = t26 ^ m6, m9 = t20 & t17, m10 = m9 ^ m6;
  const V8 m11 = t1 & t15, m12 = t4 & t27, m13 = m12 ^ m11, m14 = t2 & t10, m15 = m14 ^ m11;
  const V8 m16 = m3 ^ m2, m17 = m5 ^ t24, m18 = m8 ^ m7, m19 = m10 ^ m15, m20 = m16 ^ m13;
  const V8 m21 = m17 ^ m15, m22 = m18 ^ m13, m23 = m19 ^ t25, m24 = m22 ^ m23;
  const V8 m25 = m22 & m20, m26 = m21 ^ m25, m27 = m20 ^ m21, m28 = m23 ^ m25;
  const V8 m29 = m28 & m27, m30 = m26 & m24, m31 = m20 & m23, m32 = m27 & m31;
  const V8 m33 = m27 ^ m25, m34 = m21 & m22, m35 = m24 & m34, m36 = m24 ^ m25;
  const V8 m37 = m21 ^ m29, m38 = m32 ^ m33, m39 = m23 ^ m30, m40 = m35 ^ m36;
  const V8 m41 = m38 ^ m40, m42 = m37 ^ m39, m43 = m37 ^ m38, m44 = m39 ^ m40, m45 = m42 ^ m41;
  const V8 m46 = m44 & t6, m47 = m40 & t8, m48 = m39 & u7, m49 = m43 & t16, m50 = m38 & t9;
  const V8 m51 = m37 & t17, m52 = m42 & t15, m53 = m45 & t27, m54 = m41 & t10;
  const V8 m55 = m44 & t13, m56 = m40 & t23, m57 = m39 & t19, m58 = m43 & t3;
  const V8 m59 = m38 & t22, m60 = m37 & t20, m61 = m42 & t1, m62 = m45 & t4, m63 = m41 & t2;
  // Bottom linear layer.
  const V8 l0 = m61 ^ m62, l1 = m50 ^ m56, l2 = m46 ^ m48, l3 = m47 ^ m55, l4 = m54 ^ m58;
  const V8 l5 = m49 ^ m61, l6 = m62 ^ l5, l7 = m46 ^ l3, l8 = m51 ^ m59, l9 = m52 ^ m53;
  const V8 l10 = m53 ^ l4, l11 = m60 ^ l2, l12 = m48 ^ m51, l13 = m50 ^ l0, l14 = m52 ^ m61;
  const V8 l15 = m55 ^ l1, l16 = m56 ^ l0, l17 = m57 ^ l1, l18 = m58 ^ l8, l19 = m63 ^ l4;
  const V8 l20 = l0 ^ l1, l21 = l1 ^ l7, l22 = l3 ^ l12, l23 = l18 ^ l2, l24 = l15 ^ l9;
  const V8 l25 = l6 ^ l10, l26 = l7 ^ l9, l27 = l8 ^ l10, l28 = l11 ^ l14, l29 = l11 ^ l17;
  b[7] = l6 ^ l24;
  b[6] = l16 ^ l26;  // XNOR in the circuit
  b[5] = l19 ^ l28;  // XNOR
  b[4] = l6 ^ l21;
  b[3] = l20 ^ l22;
  b[2] = l25 ^ l29;
  b[1] = l13 ^ l27;  // XNOR
  b[0] = l6 ^ l23;   // XNOR
}

[[gnu::always_inline]] inline void shift_rows(V8* b) noexcept {
  for (int i = 0; i < kPlanes; ++i) {
    b[i] =
        __builtin_shufflevector(b[i], b[i], 0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11);
  }
}

// rotate_rows_1 moves every column's bytes up one row (row r takes row r + 1's byte): each
// 32-bit column rotated right by 8 bits.
[[gnu::always_inline]] inline V8 rotate_rows_1(V8 v) noexcept {
#if defined(__ARM_NEON)
  const uint32x4_t x = std::bit_cast<uint32x4_t>(v);
  return std::bit_cast<V8>(vsliq_n_u32(vshrq_n_u32(x, 8), x, 24));
#else
  const auto x = std::bit_cast<V32>(v);
  return std::bit_cast<V8>(static_cast<V32>((x >> 8) | (x << 24)));
#endif
}

// rotate_rows_2 moves every column's bytes two rows: the 16-bit halves of each column swap.
[[gnu::always_inline]] inline V8 rotate_rows_2(V8 v) noexcept {
  const auto x = std::bit_cast<V16>(v);
  return std::bit_cast<V8>(__builtin_shufflevector(x, x, 1, 0, 3, 2, 5, 4, 7, 6));
}

// mix_columns computes, for every row r of every column a, 2(a_r + a_r+1) + a_r+1 + a_r+2 +
// a_r+3, plane by plane; doubling in GF(2^8) moves plane i to plane i + 1 and feeds plane 7
// back into planes 0, 1, 3 and 4 (x^8 = x^4 + x^3 + x + 1). One plane at a time, so that only
// plane 7's and the previous plane's sums stay live.
[[gnu::always_inline]] inline void mix_columns(V8* b) noexcept {
  const V8 r7 = rotate_rows_1(b[7]);
  const V8 t7 = b[7] ^ r7;
  V8 previous = t7;
  for (int i = 0; i < kPlanes - 1; ++i) {
    const V8 r = rotate_rows_1(b[i]);
    const V8 t = b[i] ^ r;
    const bool feedback = i == 1 || i == 3 || i == 4;
    b[i] = r ^ rotate_rows_2(t) ^ previous;
    if (feedback) {
      b[i] ^= t7;
    }
    previous = t;
  }
  b[7] = r7 ^ rotate_rows_2(t7) ^ previous;
}

[[gnu::always_inline]] inline void add_round_key(V8* b, const V8* rk) noexcept {
  for (int i = 0; i < kPlanes; ++i) {
    b[i] ^= rk[i];
  }
}

struct PlaneKeys {
  V8 rk[kMaxRounds + 1][kPlanes];
  int rounds = 0;
};

// expand_planes spreads every round key bit to a whole byte of its plane. Round keys 1..R also
// carry the S-box's 0x63 (bits 0, 1, 5 and 6): sub_bytes leaves it out, and ShiftRows and
// MixColumns carry a constant byte through unchanged (2 + 3 + 1 + 1 = 1 in GF(2^8)), so adding
// it with the next round key restores every byte exactly.
void expand_planes(const AesRoundKeys& keys, PlaneKeys& out) noexcept {
  constexpr std::uint8_t kSboxConstant = 0x63;
  for (int r = 0; r <= keys.rounds; ++r) {
    for (int i = 0; i < kPlanes; ++i) {
      std::uint8_t plane[16];
      const auto constant = static_cast<std::uint8_t>(r == 0 ? 0 : 0 - ((kSboxConstant >> i) & 1));
      for (int j = 0; j < 16; ++j) {
        const auto bit = static_cast<std::uint8_t>((keys.bytes[r][j] >> i) & 1);
        plane[j] = static_cast<std::uint8_t>((0 - bit) ^ constant);
      }
      out.rk[r][i] = load(plane);
      ::wireseal::detail::secure_wipe(plane, sizeof(plane));
    }
  }
  out.rounds = keys.rounds;
}

// encrypt_planes is the cipher on eight blocks in plane form.
[[gnu::always_inline]] inline void encrypt_planes(const PlaneKeys& keys, V8* b) noexcept {
  add_round_key(b, keys.rk[0]);
  for (int r = 1; r < keys.rounds; ++r) {
    sub_bytes(b);
    shift_rows(b);
    mix_columns(b);
    add_round_key(b, keys.rk[r]);
  }
  sub_bytes(b);
  shift_rows(b);
  add_round_key(b, keys.rk[keys.rounds]);
}

// counter_blocks writes the next eight counter blocks (128-bit big-endian increments) and steps
// the counter past them. The carry into the high half is added, never branched on: the counter
// block can be secret (SRTP's carries the session salt). The empty asm hides the halves'
// values from the optimiser, which could otherwise rewrite the caller's loop test in terms of
// the counter, a branch valgrind rightly reports as secret-dependent.
[[gnu::always_inline]] inline void counter_blocks(std::uint64_t& hi, std::uint64_t& lo,
                                                  V8* x) noexcept {
  for (int k = 0; k < kBlocks; ++k) {
    const std::uint64_t be[2] = {__builtin_bswap64(hi), __builtin_bswap64(lo)};
    std::memcpy(&x[k], be, 16);
    const std::uint64_t next = lo + 1;
    hi += static_cast<std::uint64_t>(next < lo);
    lo = next;
  }
  __asm__("" : "+r"(hi), "+r"(lo));
}

class BitslicedAesCtr final : public AesModeImpl {
 public:
  explicit BitslicedAesCtr(Bytes key) {
    AesRoundKeys keys;
    if (!expand_aes_key(key.data(), key.size(), keys)) {
      throw std::invalid_argument("wireseal: AES key must be 16, 24 or 32 bytes");
    }
    expand_planes(keys, keys_);
    ::wireseal::detail::secure_wipe(&keys, sizeof(keys));
  }
  ~BitslicedAesCtr() override { ::wireseal::detail::secure_wipe(&keys_, sizeof(keys_)); }
  BitslicedAesCtr(const BitslicedAesCtr&) = delete;
  BitslicedAesCtr& operator=(const BitslicedAesCtr&) = delete;

  // All of a batch's input is loaded before its output is stored, so in == out is safe.
  void ctr(const std::uint8_t* counter_block, Bytes in, MutableBytes out) noexcept override {
    const Counter128 counter(counter_block);
    std::uint64_t hi = counter.hi;
    std::uint64_t lo = counter.lo;
    const std::uint8_t* src = in.data();
    std::uint8_t* dst = out.data();
    std::size_t len = in.size();
    while (len > 0) {
      V8 x[kBlocks];
      counter_blocks(hi, lo, x);
      transpose(x);
      encrypt_planes(keys_, x);
      transpose(x);
      const std::size_t n = std::min(len, kBatchBytes);
      const std::size_t full = n / 16;
      for (std::size_t k = 0; k < full; ++k) {
        store(dst + 16 * k, load(src + 16 * k) ^ x[k]);
      }
      if (const std::size_t rest = n % 16; rest != 0) {
        std::uint8_t block[16] = {};
        std::memcpy(block, src + 16 * full, rest);
        store(block, load(block) ^ x[full]);
        std::memcpy(dst + 16 * full, block, rest);
        ::wireseal::detail::secure_wipe(block, sizeof(block));
      }
      src += n;
      dst += n;
      len -= n;
    }
  }
  // Never called: the factory builds this object for AES-CTR only (AesCtr never asks for CBC).
  // Should they be, they fail closed and write no data-dependent byte.
  void cbc_encrypt(const std::uint8_t* /*iv*/, Bytes /*in*/, MutableBytes out) noexcept override {
    fail_closed(out);
  }
  void cbc_decrypt(const std::uint8_t* /*iv*/, Bytes /*in*/, MutableBytes out) noexcept override {
    fail_closed(out);
  }

 private:
  static void fail_closed(MutableBytes out) noexcept {
    if (!out.empty()) {
      std::memset(out.data(), 0, out.size());
    }
  }

  PlaneKeys keys_;
};

}  // namespace

std::unique_ptr<AesModeImpl> make_bitsliced_aes_ctr(Bytes key) {
  return std::make_unique<BitslicedAesCtr>(key);
}

}  // namespace wireseal::crypto::detail
