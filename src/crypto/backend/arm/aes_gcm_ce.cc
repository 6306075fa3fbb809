// Native AES-GCM with the ARMv8 AES and PMULL instructions, on aarch64 and on 32-bit cores
// with the AArch32 crypto extensions.
//
// GHASH works on field elements in the plain polynomial basis: a GCM block with the bits of
// every byte reversed, read as a little-endian 128-bit integer, has the coefficient of x^i in
// bit i, so multiplication is a carry-less product (PMULL/PMULL2, four 64x64 products) reduced
// modulo x^128 + x^7 + x^2 + x + 1 by two more PMULLs with 0x87. Four blocks are multiplied by
// H^4..H^1 and summed before one reduction.
//
// A 12-byte nonce gives J0 = nonce || 1; the payload is AES-CTR from J0 + 1 with a 32-bit
// counter (the front end bounds messages at 2^32 - 2 blocks, so it never wraps), and the tag is
// E(K, J0) XOR GHASH(A, C, lengths), cut to the tag length.
#include "backend/arm/aes_ce.h"
#include "backend/arm/arm_objects.h"

namespace wireseal::crypto::detail {
namespace {

using namespace aes_ce;

// reverse_bits_in_bytes reverses the bits of every byte. aarch64 has it as one instruction
// (RBIT). AArch32 has no vector RBIT, so there each nibble is looked up in a 16-entry table
// held in registers (VTBL is a register permutation: no memory address depends on the data)
// and the two reversed nibbles trade places: about seven instructions a block.
#if defined(__aarch64__)
inline uint8x16_t reverse_bits_in_bytes(uint8x16_t b) noexcept { return vrbitq_u8(b); }
#else
inline uint8x16_t reverse_bits_in_bytes(uint8x16_t b) noexcept {
  // Entry n: n's four bits reversed, in the low nibble (to_low) or the high one (to_high).
  const uint8x8x2_t to_low = {{vcreate_u8(0x0e060a020c040800), vcreate_u8(0x0f070b030d050901)}};
  const uint8x8x2_t to_high = {{vcreate_u8(0xe060a020c0408000), vcreate_u8(0xf070b030d0509010)}};
  const uint8x16_t low = vandq_u8(b, vdupq_n_u8(0x0f));
  const uint8x16_t high = vshrq_n_u8(b, 4);
  const uint8x8_t first =
      vorr_u8(vtbl2_u8(to_high, vget_low_u8(low)), vtbl2_u8(to_low, vget_low_u8(high)));
  const uint8x8_t second =
      vorr_u8(vtbl2_u8(to_high, vget_high_u8(low)), vtbl2_u8(to_low, vget_high_u8(high)));
  return vcombine_u8(first, second);
}
#endif

inline uint64x2_t to_field(uint8x16_t block) noexcept {
  return vreinterpretq_u64_u8(reverse_bits_in_bytes(block));
}
inline uint8x16_t from_field(uint64x2_t x) noexcept {
  return reverse_bits_in_bytes(vreinterpretq_u8_u64(x));
}

inline uint64x2_t pmull_lo(uint64x2_t a, uint64x2_t b) noexcept {
  return vreinterpretq_u64_p128(vmull_p64(vgetq_lane_p64(vreinterpretq_p64_u64(a), 0),
                                          vgetq_lane_p64(vreinterpretq_p64_u64(b), 0)));
}
inline uint64x2_t pmull_hi(uint64x2_t a, uint64x2_t b) noexcept {
  return vreinterpretq_u64_p128(vmull_high_p64(vreinterpretq_p64_u64(a), vreinterpretq_p64_u64(b)));
}

// Wide is an unreduced product: lo + mid * x^64 + hi * x^128.
struct Wide {
  uint64x2_t lo;
  uint64x2_t mid;
  uint64x2_t hi;
};

// A power of H with its halves swapped, for the cross products.
struct Power {
  uint64x2_t h;
  uint64x2_t swapped;
};

inline Power power(uint64x2_t h) noexcept { return {h, vextq_u64(h, h, 1)}; }

inline Wide multiply(uint64x2_t a, const Power& b) noexcept {
  return {pmull_lo(a, b.h), veorq_u64(pmull_lo(a, b.swapped), pmull_hi(a, b.swapped)),
          pmull_hi(a, b.h)};
}

inline void accumulate(Wide& sum, const Wide& w) noexcept {
  sum.lo = veorq_u64(sum.lo, w.lo);
  sum.mid = veorq_u64(sum.mid, w.mid);
  sum.hi = veorq_u64(sum.hi, w.hi);
}

// reduce folds the 256-bit product modulo x^128 + x^7 + x^2 + x + 1: x^128 = 0x87, applied to
// the top word (whose product with 0x87 reaches word 2) and then to word 2.
inline uint64x2_t reduce(const Wide& w) noexcept {
  const uint64x2_t zero = vdupq_n_u64(0);
  uint64x2_t lo = veorq_u64(w.lo, vextq_u64(zero, w.mid, 1));  // words 0, 1
  uint64x2_t hi = veorq_u64(w.hi, vextq_u64(w.mid, zero, 1));  // words 2, 3
  const uint64x2_t k = vdupq_n_u64(0x87);
  const uint64x2_t top = pmull_hi(hi, k);  // word 3 * 0x87: into words 1 and 2
  lo = veorq_u64(lo, vextq_u64(zero, top, 1));
  hi = veorq_u64(hi, vextq_u64(top, zero, 1));
  return veorq_u64(lo, pmull_lo(hi, k));  // word 2 * 0x87: into words 0 and 1
}

class Ghash {
 public:
  explicit Ghash(const Power* powers) noexcept : powers_(powers) {}

  // blocks absorbs n whole 16-byte blocks.
  void blocks(const std::uint8_t* p, std::size_t n) noexcept {
    for (; n >= 4; n -= 4, p += 64) {
      Wide sum = multiply(veorq_u64(x_, to_field(vld1q_u8(p))), powers_[3]);
      accumulate(sum, multiply(to_field(vld1q_u8(p + 16)), powers_[2]));
      accumulate(sum, multiply(to_field(vld1q_u8(p + 32)), powers_[1]));
      accumulate(sum, multiply(to_field(vld1q_u8(p + 48)), powers_[0]));
      x_ = reduce(sum);
    }
    for (; n > 0; --n, p += 16) {
      x_ = reduce(multiply(veorq_u64(x_, to_field(vld1q_u8(p))), powers_[0]));
    }
  }
  // bytes absorbs `len` bytes, the last block zero-padded.
  void bytes(const std::uint8_t* p, std::size_t len) noexcept {
    blocks(p, len / 16);
    if (len % 16 != 0) {
      std::uint8_t last[16] = {};
      std::memcpy(last, p + len / 16 * 16, len % 16);
      blocks(last, 1);
    }
  }
  // finish absorbs the length block and returns GHASH as a GCM block.
  uint8x16_t finish(std::size_t aad_len, std::size_t text_len) noexcept {
    std::uint8_t lengths[16];
    const std::uint64_t bits[2] = {__builtin_bswap64(std::uint64_t{aad_len} * 8),
                                   __builtin_bswap64(std::uint64_t{text_len} * 8)};
    std::memcpy(lengths, bits, 16);
    blocks(lengths, 1);
    return from_field(x_);
  }

 private:
  const Power* powers_;
  uint64x2_t x_ = vdupq_n_u64(0);
};

class CeGcm final : public AeadImpl {
 public:
  CeGcm(Bytes key, std::size_t tag_len) : tag_len_(tag_len) {
    ks_.init(key.data(), key.size());
    uint8x16_t h = encrypt_block(ks_, vdupq_n_u8(0));
    const uint64x2_t h1 = to_field(h);
    powers_[0] = power(h1);
    for (int i = 1; i < 4; ++i) {
      powers_[i] = power(reduce(multiply(powers_[i - 1].h, powers_[0])));
    }
    ::wireseal::detail::secure_wipe(&h, sizeof(h));
  }
  ~CeGcm() override {
    ks_.wipe();
    ::wireseal::detail::secure_wipe(powers_, sizeof(powers_));
  }
  CeGcm(const CeGcm&) = delete;
  CeGcm& operator=(const CeGcm&) = delete;

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
            MutableBytes tag) noexcept override {
    const uint32x4_t j0 = counter_block(nonce);
    crypt(j0, in.data(), out.data(), in.size());
    Ghash g(powers_);
    g.bytes(aad.data(), aad.size());
    g.bytes(out.data(), in.size());
    std::uint8_t full[16];
    vst1q_u8(full, veorq_u8(g.finish(aad.size(), in.size()),
                            encrypt_block(ks_, vreinterpretq_u8_u32(j0))));
    std::memcpy(tag.data(), full, tag_len_);
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    const uint32x4_t j0 = counter_block(nonce);
    Ghash g(powers_);
    g.bytes(aad.data(), aad.size());
    g.bytes(in.data(), in.size());
    std::uint8_t expected[16];
    vst1q_u8(expected, veorq_u8(g.finish(aad.size(), in.size()),
                                encrypt_block(ks_, vreinterpretq_u8_u32(j0))));
    crypt(j0, in.data(), out.data(), in.size());
    const bool authentic = ct_equal(std::span<const std::uint8_t>(expected, tag_len_), tag);
    ::wireseal::detail::secure_wipe(expected, sizeof(expected));
    return authentic;
  }

 private:
  // counter_block is J0 = nonce || 0x00000001 (12-byte nonces only, aead.cc).
  static uint32x4_t counter_block(Bytes nonce) noexcept {
    std::uint8_t j0[16] = {};
    std::memcpy(j0, nonce.data(), 12);
    j0[15] = 1;
    return vreinterpretq_u32_u8(vld1q_u8(j0));
  }
  void crypt(uint32x4_t j0, const std::uint8_t* in, std::uint8_t* out,
             std::size_t len) const noexcept {
    with_rounds(ks_.rounds, [&](auto r) {
      ctr_xor_with(RoundKeys<decltype(r)::value>(ks_.rk), Low32{j0, 2}, in, out, len);
    });
  }

  Schedule ks_;
  Power powers_[4];  // H^1..H^4
  std::size_t tag_len_;
};

}  // namespace

std::unique_ptr<AeadImpl> make_ce_gcm(Bytes key, std::size_t tag_len) {
  return std::make_unique<CeGcm>(key, tag_len);
}

}  // namespace wireseal::crypto::detail
