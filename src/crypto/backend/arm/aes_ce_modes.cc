// Native AES-CTR, AES-CBC and AES-CMAC with the ARMv8 AES instructions.
//
// CTR and CBC decryption keep eight blocks in flight, enough to cover AESE/AESMC's latency
// on current cores (Cortex-A53's pipeline is two deep, Neoverse's four); CBC encryption and
// CMAC are serial by definition and run one block at a time.
#include <algorithm>

#include "backend/arm/aes_ce.h"
#include "backend/arm/arm_objects.h"
#include "backend/portable/counter128.h"

namespace wireseal::crypto::detail {
namespace {

using namespace aes_ce;

constexpr int kLanes = 8;  // CBC decryption's blocks in flight

// Carried32 lets the counter's last word wrap once, so a call longer than 2^32 blocks (64 GiB,
// possible on aarch64 only) goes in pieces of 2^32 blocks, each starting from the counter the
// previous piece's generator carried into.
template <int R>
void ctr_xor(const Schedule& ks, const std::uint8_t* counter_block, const std::uint8_t* in,
             std::uint8_t* out, std::size_t len) noexcept {
  const RoundKeys<R> rk(ks.rk);
  constexpr std::uint64_t kPiece = std::uint64_t{16} << 32;
  std::uint8_t next_piece[16];
  for (const std::uint8_t* counter = counter_block;; counter = next_piece) {
    const Carried32 blocks(counter);
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(len, kPiece));
    ctr_xor_with(rk, blocks, in, out, n);
    len -= n;
    if (len == 0) {
      return;
    }
    blocks.store_after_wrap(next_piece);
    in += n;
    out += n;
  }
}

// CBC encryption is one serial chain: round key R, the next plaintext block and round key 0
// are folded into the next block's first AESE key off the critical path (aes_ce.h).
template <int R>
void cbc_encrypt_blocks(const Schedule& ks, const std::uint8_t* iv, const std::uint8_t* in,
                        std::uint8_t* out, std::size_t len) noexcept {
  const RoundKeys<R> rk(ks.rk);
  const std::size_t n = len / 16;
  if (n == 0) {
    return;
  }
  const uint8x16_t last_and_first = veorq_u8(rk.k[R], rk.k[0]);
  uint8x16_t s = encrypt_to_last(rk, vld1q_u8(iv), veorq_u8(vld1q_u8(in), rk.k[0]));
  for (std::size_t i = 1; i < n; ++i) {
    // Load the next block before this block's ciphertext is stored: in == out is allowed.
    const uint8x16_t first = veorq_u8(vld1q_u8(in + 16 * i), last_and_first);
    vst1q_u8(out + 16 * (i - 1), veorq_u8(s, rk.k[R]));
    s = encrypt_to_last(rk, s, first);
  }
  vst1q_u8(out + 16 * (n - 1), veorq_u8(s, rk.k[R]));
}

// All loads of a group happen before its stores, so in == out is safe.
template <int R>
void cbc_decrypt_blocks(const Schedule& dec, const std::uint8_t* iv, const std::uint8_t* src,
                        std::uint8_t* dst, std::size_t len) noexcept {
  const RoundKeys<R> rk(dec.rk);
  uint8x16_t prev = vld1q_u8(iv);
  while (len >= 16 * kLanes) {
    uint8x16_t c[kLanes];
    uint8x16_t p[kLanes];
    for (int i = 0; i < kLanes; ++i) {
      c[i] = vld1q_u8(src + 16 * i);
      p[i] = c[i];
    }
    decrypt_n<R, kLanes>(rk, p);
    vst1q_u8(dst, veorq_u8(p[0], prev));
    for (int i = 1; i < kLanes; ++i) {
      vst1q_u8(dst + 16 * i, veorq_u8(p[i], c[i - 1]));
    }
    prev = c[kLanes - 1];
    src += 16 * kLanes;
    dst += 16 * kLanes;
    len -= 16 * kLanes;
  }
  for (; len >= 16; src += 16, dst += 16, len -= 16) {
    const uint8x16_t c = vld1q_u8(src);
    uint8x16_t p = c;
    decrypt_n<R, 1>(rk, &p);
    vst1q_u8(dst, veorq_u8(p, prev));
    prev = c;
  }
}

class CeAesMode final : public AesModeImpl {
 public:
  CeAesMode(AesMode mode, Bytes key) {
    enc_.init(key.data(), key.size());
    if (mode == AesMode::kCbc) {
      dec_.derive_decrypt(enc_);
    }
  }
  ~CeAesMode() override {
    enc_.wipe();
    dec_.wipe();
  }
  CeAesMode(const CeAesMode&) = delete;
  CeAesMode& operator=(const CeAesMode&) = delete;

  void ctr(const std::uint8_t* counter_block, Bytes in, MutableBytes out) noexcept override {
    with_rounds(enc_.rounds, [&](auto r) {
      ctr_xor<decltype(r)::value>(enc_, counter_block, in.data(), out.data(), in.size());
    });
  }
  void cbc_encrypt(const std::uint8_t* iv, Bytes in, MutableBytes out) noexcept override {
    with_rounds(enc_.rounds, [&](auto r) {
      cbc_encrypt_blocks<decltype(r)::value>(enc_, iv, in.data(), out.data(), in.size());
    });
  }
  void cbc_decrypt(const std::uint8_t* iv, Bytes in, MutableBytes out) noexcept override {
    with_rounds(dec_.rounds, [&](auto r) {
      cbc_decrypt_blocks<decltype(r)::value>(dec_, iv, in.data(), out.data(), in.size());
    });
  }

 private:
  Schedule enc_;
  Schedule dec_{};
};

class CeCmac final : public CmacImpl {
 public:
  explicit CeCmac(Bytes key) {
    ks_.init(key.data(), key.size());
    uint8x16_t l = encrypt_block(ks_, vdupq_n_u8(0));
    vst1q_u8(k1_, l);
    cmac_double(k1_);
    std::memcpy(k2_, k1_, 16);
    cmac_double(k2_);
    ::wireseal::detail::secure_wipe(&l, sizeof(l));
  }
  ~CeCmac() override {
    ks_.wipe();
    ::wireseal::detail::secure_wipe(k1_, sizeof(k1_));
    ::wireseal::detail::secure_wipe(k2_, sizeof(k2_));
  }
  CeCmac(const CeCmac&) = delete;
  CeCmac& operator=(const CeCmac&) = delete;

  void compute(Bytes message, std::uint8_t* mac16) noexcept override {
    with_rounds(ks_.rounds, [&](auto r) { compute_rounds<decltype(r)::value>(message, mac16); });
  }

 private:
  // compute_rounds is the CBC-MAC of cbc_encrypt_blocks over the message, whose last block
  // (complete, or padded with 10*) carries its subkey.
  template <int R>
  void compute_rounds(Bytes message, std::uint8_t* mac16) const noexcept {
    const RoundKeys<R> rk(ks_.rk);
    const std::uint8_t* p = message.data();
    const std::size_t len = message.size();
    const std::size_t n = len == 0 ? 1 : (len + 15) / 16;
    const std::size_t last_len = len - 16 * (n - 1);
    std::uint8_t block[16] = {};
    if (last_len > 0) {
      std::memcpy(block, p + 16 * (n - 1), last_len);
    }
    if (last_len < 16) {
      block[last_len] = 0x80;
    }
    const uint8x16_t last = veorq_u8(vld1q_u8(block), vld1q_u8(last_len == 16 ? k1_ : k2_));
    const uint8x16_t last_and_first = veorq_u8(rk.k[R], rk.k[0]);
    auto block_at = [&](std::size_t i) { return i + 1 < n ? vld1q_u8(p + 16 * i) : last; };
    uint8x16_t s = encrypt_to_last(rk, vdupq_n_u8(0), veorq_u8(block_at(0), rk.k[0]));
    for (std::size_t i = 1; i < n; ++i) {
      s = encrypt_to_last(rk, s, veorq_u8(block_at(i), last_and_first));
    }
    vst1q_u8(mac16, veorq_u8(s, rk.k[R]));
    ::wireseal::detail::secure_wipe(block, sizeof(block));
  }

  Schedule ks_;
  std::uint8_t k1_[16];
  std::uint8_t k2_[16];
};

}  // namespace

std::unique_ptr<AesModeImpl> make_ce_aes_mode(AesMode mode, Bytes key) {
  return std::make_unique<CeAesMode>(mode, key);
}

std::unique_ptr<CmacImpl> make_ce_cmac(Bytes key) { return std::make_unique<CeCmac>(key); }

}  // namespace wireseal::crypto::detail
