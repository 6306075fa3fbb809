#pragma once
// AES with the ARMv8 Cryptography Extensions, the building blocks of the ARM native kernels.
// Include only from translation units compiled for the crypto extensions (src/CMakeLists.txt);
// they run only after the HWCAP probe said AES is present. The same intrinsics serve aarch64
// and AArch32.
//
// AESE is AddRoundKey, SubBytes and ShiftRows; AESMC is MixColumns. A round is therefore
// AESE with round key r followed by AESMC (cores fuse the adjacent pair), and the last round is
// AESE with key R-1 and an XOR with key R. Decryption is the equivalent inverse cipher with
// AESD/AESIMC on InvMixColumns'd keys, as for x86's AESDEC.

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "backend/portable/aes_key_schedule.h"
#include "backend/portable/count_dispatch.h"
#include "backend/portable/counter128.h"
#include "common/ct.h"

namespace wireseal::crypto::detail::aes_ce {

// Schedule holds round keys 0..rounds as vectors: the encryption keys, or (derive_decrypt)
// the equivalent inverse cipher's.
struct Schedule {
  uint8x16_t rk[15];
  int rounds = 0;

  // init expands a 16-, 24- or 32-byte key (throws std::invalid_argument otherwise) and
  // wipes the temporary expansion.
  void init(const std::uint8_t* key, std::size_t key_len) {
    AesRoundKeys keys;
    if (!expand_aes_key(key, key_len, keys)) {
      throw std::invalid_argument("wireseal: AES key must be 16, 24 or 32 bytes");
    }
    rounds = keys.rounds;
    for (int i = 0; i <= rounds; ++i) {
      rk[i] = vld1q_u8(keys.bytes[i]);
    }
    ::wireseal::detail::secure_wipe(&keys, sizeof(keys));
  }
  void derive_decrypt(const Schedule& enc) noexcept {
    rounds = enc.rounds;
    rk[0] = enc.rk[rounds];
    for (int i = 1; i < rounds; ++i) {
      rk[i] = vaesimcq_u8(enc.rk[rounds - i]);
    }
    rk[rounds] = enc.rk[0];
  }
  void wipe() noexcept { ::wireseal::detail::secure_wipe(rk, sizeof(rk)); }
};

// RoundKeys<R> is a by-value copy of the round keys, so they stay in registers in hot loops
// (with_rounds, count_dispatch.h, picks R).
template <int R>
struct RoundKeys {
  uint8x16_t k[static_cast<std::size_t>(R + 1)];
  explicit RoundKeys(const uint8x16_t* rk) noexcept {
    for (int i = 0; i <= R; ++i) {
      k[i] = rk[i];
    }
  }
};

// encrypt_n / decrypt_n run N independent blocks through the rounds together, round by round,
// so one block's AESE latency hides behind the others'.
template <int R, int N>
inline void encrypt_n(const RoundKeys<R>& rk, uint8x16_t* b) noexcept {
  for (int r = 0; r < R - 1; ++r) {
    for (int i = 0; i < N; ++i) {
      b[i] = vaesmcq_u8(vaeseq_u8(b[i], rk.k[r]));
    }
  }
  for (int i = 0; i < N; ++i) {
    b[i] = veorq_u8(vaeseq_u8(b[i], rk.k[R - 1]), rk.k[R]);
  }
}

template <int R, int N>
inline void decrypt_n(const RoundKeys<R>& rk, uint8x16_t* b) noexcept {
  for (int r = 0; r < R - 1; ++r) {
    for (int i = 0; i < N; ++i) {
      b[i] = vaesimcq_u8(vaesdq_u8(b[i], rk.k[r]));
    }
  }
  for (int i = 0; i < N; ++i) {
    b[i] = veorq_u8(vaesdq_u8(b[i], rk.k[R - 1]), rk.k[R]);
  }
}

// encrypt_block encrypts one block: the single blocks of set-up (CMAC's L, GCM's H) and GCM's
// E(K, J0).
inline uint8x16_t encrypt_block(const Schedule& ks, uint8x16_t b) noexcept {
  with_rounds(ks.rounds, [&](auto r) {
    encrypt_n<decltype(r)::value, 1>(RoundKeys<decltype(r)::value>(ks.rk), &b);
  });
  return b;
}

// encrypt_to_last runs the rounds of AESE(x, first) onwards, up to the last AESE, and leaves
// round key R to the caller. Chained modes (CBC encryption, CMAC) pass the previous block's
// output as x and fold round key R, the next message block and round key 0 into `first`,
// which leaves a single AESE chain on the critical path (aes_ce_modes.cc).
template <int R>
inline uint8x16_t encrypt_to_last(const RoundKeys<R>& rk, uint8x16_t x, uint8x16_t first) noexcept {
  x = vaesmcq_u8(vaeseq_u8(x, first));
  for (int r = 1; r < R - 1; ++r) {
    x = vaesmcq_u8(vaeseq_u8(x, rk.k[r]));
  }
  return vaeseq_u8(x, rk.k[R - 1]);
}

// load_partial loads `len` (< 16) bytes, zero-padded to a block.
inline uint8x16_t load_partial(const std::uint8_t* p, std::size_t len) noexcept {
  std::uint8_t block[16] = {};
  std::memcpy(block, p, len);
  return vld1q_u8(block);
}

// xor_partial XORs `len` (< 16) bytes of `in` with the low bytes of `keystream` into `out`.
inline void xor_partial(const std::uint8_t* in, std::uint8_t* out, std::size_t len,
                        uint8x16_t keystream) noexcept {
  std::uint8_t ks[16];
  vst1q_u8(ks, keystream);
  for (std::size_t i = 0; i < len; ++i) {
    out[i] = static_cast<std::uint8_t>(in[i] ^ ks[i]);
  }
}

// CTR keeps eight blocks in flight, enough to cover AESE/AESMC's latency on current cores
// (Cortex-A53's pipeline is two deep, Neoverse's four).
inline constexpr int kCtrLanes = 8;

// The counter blocks of a CTR call come from a generator that returns the current block and
// steps it. Both keep the block in a vector and replace only its last word, which costs an add,
// a byte swap and a lane insert per block instead of 64-bit arithmetic (two instructions each
// on 32-bit ARM) and a vector rebuild.
//
// Low32 steps the last word alone, wrapping within it: GCM's inc32.
struct Low32 {
  uint32x4_t block;
  std::uint32_t low;  // the last word, in host order
  uint8x16_t operator()() noexcept {
    block = vsetq_lane_u32(__builtin_bswap32(low++), block, 3);
    return vreinterpretq_u8_u32(block);
  }
};

// Carried32 counts through all 128 bits (AES-CTR's counter). The 96 bits above the last word
// are one of two vectors made up front, as given or plus one, chosen by a mask that is set once
// the last word has wrapped. Nothing branches on the counter: it can be secret (SRTP's carries
// the session salt), and choosing a cheaper generator for the calls that cannot wrap would
// branch on it.
class Carried32 {
 public:
  explicit Carried32(const std::uint8_t* counter_block) noexcept {
    const Counter128 ctr(counter_block);
    first_ = static_cast<std::uint32_t>(ctr.lo);
    low_ = first_;
    as_given_ = vreinterpretq_u32_u8(vld1q_u8(counter_block));
    const std::uint64_t lo = ctr.lo + (std::uint64_t{1} << 32);
    const std::uint64_t hi = ctr.hi + static_cast<std::uint64_t>(lo < ctr.lo);  // add with carry
    const uint64x2_t words = {__builtin_bswap64(hi), __builtin_bswap64(lo)};
    plus_one_ = vreinterpretq_u32_u64(words);
  }
  // store_after_wrap writes the counter block 2^32 blocks on from the start: the carried
  // upper words with the starting last word.
  void store_after_wrap(std::uint8_t* block) const noexcept {
    vst1q_u8(block, vreinterpretq_u8_u32(plus_one_));
  }
  uint8x16_t operator()() noexcept {
    const std::uint32_t wrapped = 0U - static_cast<std::uint32_t>(low_ < first_);
    const uint32x4_t high = vbslq_u32(vdupq_n_u32(wrapped), plus_one_, as_given_);
    return vreinterpretq_u8_u32(vsetq_lane_u32(__builtin_bswap32(low_++), high, 3));
  }

 private:
  uint32x4_t as_given_;
  uint32x4_t plus_one_;
  std::uint32_t first_;
  std::uint32_t low_;
};

template <int R, class Next>
inline void ctr_xor_with(const RoundKeys<R>& rk, Next next, const std::uint8_t* in,
                         std::uint8_t* out, std::size_t len) noexcept {
  while (len >= 16 * kCtrLanes) {
    uint8x16_t b[kCtrLanes];
    for (uint8x16_t& x : b) {
      x = next();
    }
    encrypt_n<R, kCtrLanes>(rk, b);
    for (int i = 0; i < kCtrLanes; ++i) {
      vst1q_u8(out + 16 * i, veorq_u8(b[i], vld1q_u8(in + 16 * i)));
    }
    in += 16 * kCtrLanes;
    out += 16 * kCtrLanes;
    len -= 16 * kCtrLanes;
  }
  // The last 1..8 blocks, the final one possibly partial: four, then two, then one at a time
  // (a few straight-line shapes rather than one per count).
  while (len > 0) {
    uint8x16_t b[4];
    const std::size_t blocks = (len + 15) / 16;
    const std::size_t n = blocks >= 4 ? 4 : blocks >= 2 ? 2 : 1;
    for (std::size_t i = 0; i < n; ++i) {
      b[i] = next();
    }
    if (n == 4) {
      encrypt_n<R, 4>(rk, b);
    } else if (n == 2) {
      encrypt_n<R, 2>(rk, b);
    } else {
      encrypt_n<R, 1>(rk, b);
    }
    for (std::size_t i = 0; i < n && len > 0; ++i) {
      if (len >= 16) {
        vst1q_u8(out, veorq_u8(b[i], vld1q_u8(in)));
        in += 16;
        out += 16;
        len -= 16;
      } else {
        xor_partial(in, out, len, b[i]);
        len = 0;
      }
    }
  }
}

}  // namespace wireseal::crypto::detail::aes_ce
