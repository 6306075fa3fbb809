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
//   SubBytes    is Boyar and Peralta's 115-gate circuit over the eight planes (32 ANDs; the
//               S-box's affine constant 0x63 is folded into the round keys);
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
#include <cstddef>
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

#if defined(__arm__) && defined(__ARM_NEON)
// AArch32: whole CTR batches are assembly generated from this file's S-box circuit, with the
// values that do not fit in NEON's registers spilled by a register allocator rather than by
// GCC (backend/arm/aes_bitsliced_armv7.S, scripts/gen-aes-bitsliced-armv7.py). Its middle
// rounds keep the planes' bytes row-major, so their round keys are laid out that way.
constexpr bool kAssemblyRounds = true;

// The assembly's view of one CTR call: read, and the counter advanced, batch by batch.
struct BitslicedCtrState {
  const void* round_keys;  // (rounds + 1) x 8 planes
  std::int32_t rounds;
  std::uint32_t counter[4];  // the counter block's big-endian words, most significant first
};
static_assert(offsetof(BitslicedCtrState, rounds) == 4 &&
              offsetof(BitslicedCtrState, counter) == 8);
extern "C" void wireseal_aes_bitsliced_ctr_armv7(const std::uint8_t* in, std::uint8_t* out,
                                                 std::size_t batches, BitslicedCtrState* state);
#else
constexpr bool kAssemblyRounds = false;
#endif

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

// sub_bytes is Boyar and Peralta's smallest S-box circuit ("A new combinational logic
// minimization technique with applications to cryptology", 2010): 115 gates, 32 of them ANDs
// (their depth-16 circuit, used here before, has 128). On planes, its inputs U0..U7 and outputs
// S0..S7 run from the most significant bit, so U_j is plane 7 - j and S_j goes to plane 7 - j. Its
// four XNORs (S1, S2, S6, S7) are XORs here; the missing NOTs are the S-box's 0x63, which the
// round keys carry instead (expand_planes). scripts/gen-aes-bitsliced-armv7.py reads the
// circuit from this function for the AArch32 assembly: keep the one-gate-per-name form.
[[gnu::always_inline]] inline void sub_bytes(V8* b) noexcept {
  const V8 u0 = b[7], u1 = b[6], u2 = b[5], u3 = b[4];
  const V8 u4 = b[3], u5 = b[2], u6 = b[1], u7 = b[0];
  // Top linear layer: 23 XORs.
  const V8 y14 = u3 ^ u5, y13 = u0 ^ u6, y9 = u0 ^ u3, y8 = u0 ^ u5, t0 = u1 ^ u2, y1 = t0 ^ u7;
  const V8 y4 = y1 ^ u3, y12 = y13 ^ y14, y2 = y1 ^ u0, y5 = y1 ^ u6, y3 = y5 ^ y8, t1 = u4 ^ y12;
  const V8 y15 = t1 ^ u5, y20 = t1 ^ u1, y6 = y15 ^ u7, y10 = y15 ^ t0, y11 = y20 ^ y9;
  const V8 y7 = u7 ^ y11, y17 = y10 ^ y11, y19 = y10 ^ y8, y16 = t0 ^ y11, y21 = y13 ^ y16;
  const V8 y18 = u0 ^ y16;
  // Middle, non-linear layer: inversion in GF(2^4)^2 (32 ANDs).
  const V8 t2 = y12 & y15, t3 = y3 & y6, t4 = t3 ^ t2, t5 = y4 & u7, t6 = t5 ^ t2, t7 = y13 & y16;
  const V8 t8 = y5 & y1, t9 = t8 ^ t7, t10 = y2 & y7, t11 = t10 ^ t7, t12 = y9 & y11;
  const V8 t13 = y14 & y17, t14 = t13 ^ t12, t15 = y8 & y10, t16 = t15 ^ t12, t17 = t4 ^ t14;
  const V8 t18 = t6 ^ t16, t19 = t9 ^ t14, t20 = t11 ^ t16, t21 = t17 ^ y20, t22 = t18 ^ y19;
  const V8 t23 = t19 ^ y21, t24 = t20 ^ y18, t25 = t21 ^ t22, t26 = t21 & t23, t27 = t24 ^ t26;
  const V8 t28 = t25 & t27, t29 = t28 ^ t22, t30 = t23 ^ t24, t31 = t22 ^ t26, t32 = t31 & t30;
  const V8 t33 = t32 ^ t24, t34 = t23 ^ t33, t35 = t27 ^ t33, t36 = t24 & t35, t37 = t36 ^ t34;
  const V8 t38 = t27 ^ t36, t39 = t29 & t38, t40 = t25 ^ t39, t41 = t40 ^ t37, t42 = t29 ^ t33;
  const V8 t43 = t29 ^ t40, t44 = t33 ^ t37, t45 = t42 ^ t41, z0 = t44 & y15, z1 = t37 & y6;
  const V8 z2 = t33 & u7, z3 = t43 & y16, z4 = t40 & y1, z5 = t29 & y7, z6 = t42 & y11;
  const V8 z7 = t45 & y17, z8 = t41 & y10, z9 = t44 & y12, z10 = t37 & y3, z11 = t33 & y4;
  const V8 z12 = t43 & y13, z13 = t40 & y5, z14 = t29 & y2, z15 = t42 & y9, z16 = t45 & y14;
  const V8 z17 = t41 & y8;
  // Bottom linear layer.
  const V8 t46 = z15 ^ z16, t47 = z10 ^ z11, t48 = z5 ^ z13, t49 = z9 ^ z10, t50 = z2 ^ z12;
  const V8 t51 = z2 ^ z5, t52 = z7 ^ z8, t53 = z0 ^ z3, t54 = z6 ^ z7, t55 = z16 ^ z17;
  const V8 t56 = z12 ^ t48, t57 = t50 ^ t53, t58 = z4 ^ t46, t59 = z3 ^ t54, t60 = t46 ^ t57;
  const V8 t61 = z14 ^ t57, t62 = t52 ^ t58, t63 = t49 ^ t58, t64 = z4 ^ t59, t65 = t61 ^ t62;
  const V8 t66 = z1 ^ t63, s0 = t59 ^ t63, s6 = t56 ^ t62, s7 = t48 ^ t60, t67 = t64 ^ t65;
  const V8 s3 = t53 ^ t66, s4 = t51 ^ t66, s5 = t47 ^ t65, s1 = t64 ^ s3, s2 = t55 ^ t67;
  b[7] = s0;
  b[6] = s1;
  b[5] = s2;
  b[4] = s3;
  b[3] = s4;
  b[2] = s5;
  b[1] = s6;
  b[0] = s7;
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
// it with the next round key restores every byte exactly. For the assembly rounds, the keys
// of rounds 1 .. R - 1 go row-major: column-major byte 4c + r to byte 4r + c.
void expand_planes(const AesRoundKeys& keys, PlaneKeys& out) noexcept {
  constexpr std::uint8_t kSboxConstant = 0x63;
  for (int r = 0; r <= keys.rounds; ++r) {
    const bool row_major = kAssemblyRounds && r > 0 && r < keys.rounds;
    for (int i = 0; i < kPlanes; ++i) {
      std::uint8_t plane[16];
      const auto constant = static_cast<std::uint8_t>(r == 0 ? 0 : 0 - ((kSboxConstant >> i) & 1));
      for (int j = 0; j < 16; ++j) {
        const auto bit = static_cast<std::uint8_t>((keys.bytes[r][j] >> i) & 1);
        plane[row_major ? 4 * (j % 4) + j / 4 : j] =
            static_cast<std::uint8_t>((0 - bit) ^ constant);
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
#if defined(__arm__) && defined(__ARM_NEON)
    ctr_assembly(counter_block, in, out);
#else
    ctr_vectors(counter_block, in, out);
#endif
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

  void ctr_vectors(const std::uint8_t* counter_block, Bytes in, MutableBytes out) noexcept {
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

#if defined(__arm__) && defined(__ARM_NEON)
  // The assembly takes whole 128-byte batches; a last partial one is encrypted in a buffer.
  void ctr_assembly(const std::uint8_t* counter_block, Bytes in, MutableBytes out) noexcept {
    BitslicedCtrState state{keys_.rk[0], keys_.rounds, {}};
    for (int w = 0; w < 4; ++w) {
      std::uint32_t be;
      std::memcpy(&be, counter_block + 4 * w, 4);
      state.counter[w] = __builtin_bswap32(be);
    }
    const std::size_t batches = in.size() / kBatchBytes;
    if (batches > 0) {
      wireseal_aes_bitsliced_ctr_armv7(in.data(), out.data(), batches, &state);
    }
    if (const std::size_t rest = in.size() % kBatchBytes; rest != 0) {
      std::uint8_t batch[kBatchBytes];
      const std::size_t done = in.size() - rest;
      std::memcpy(batch, in.data() + done, rest);
      wireseal_aes_bitsliced_ctr_armv7(batch, batch, 1, &state);
      std::memcpy(out.data() + done, batch, rest);
      ::wireseal::detail::secure_wipe(batch, sizeof(batch));
    }
    ::wireseal::detail::secure_wipe(&state, sizeof(state));
  }
#endif

  PlaneKeys keys_;
};

}  // namespace

std::unique_ptr<AesModeImpl> make_bitsliced_aes_ctr(Bytes key) {
  return std::make_unique<BitslicedAesCtr>(key);
}

}  // namespace wireseal::crypto::detail
