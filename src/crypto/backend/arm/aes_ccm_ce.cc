// Native AES-CCM (NIST SP 800-38C, RFC 3610) with the ARMv8 AES instructions, on aarch64 and on
// 32-bit cores with the AArch32 crypto extensions: DTLS's CCM and CCM_8 suites, the IoT ones.
//
// CCM is a CBC-MAC over the formatted input plus CTR encryption. The MAC chain is serial, so
// each MAC block runs through the rounds beside one counter block (mac_and_counter): the
// counter block fills the AESE latency the chain leaves idle. The chain carries no XOR between
// blocks: AESE adds its round key first, so the previous block's last round key, the next input
// block and round key 0 fold into the next block's first AESE key (aes_ce::encrypt_to_last).
//
// Sealing MACs plaintext block i beside the keystream of block i. Opening needs block i's
// keystream before it can MAC block i, so the keystream runs one block ahead: block i+1's goes
// through the rounds beside block i's MAC.
#include <cstring>

#include "backend/arm/aes_ce.h"
#include "backend/arm/arm_objects.h"
#include "backend/portable/ccm_format.h"
#include "common/ct.h"

namespace wireseal::crypto::detail {
namespace {

using namespace aes_ce;

// Counter gives the counter blocks A_1, A_2, ...: A0 with the count in its last bytes. The
// count stays below 2^(8q) (the message length is bounded by the q-byte length field), so it
// never reaches the nonce's bytes and is simply ORed into the low half.
class Counter {
 public:
  Counter(const std::uint8_t* nonce, std::size_t nonce_len) noexcept {
    std::uint8_t a0[16];
    ccm::format_a0(a0, nonce, nonce_len);
    a0_ = vreinterpretq_u64_u8(vld1q_u8(a0));
    low_ = vgetq_lane_u64(a0_, 1);
  }
  uint8x16_t a0() const noexcept { return vreinterpretq_u8_u64(a0_); }
  uint8x16_t next() noexcept {
    ++i_;
    return vreinterpretq_u8_u64(vsetq_lane_u64(low_ | __builtin_bswap64(i_), a0_, 1));
  }

 private:
  uint64x2_t a0_;
  std::uint64_t low_;  // A0's last eight bytes as loaded (the count's bytes are zero)
  std::uint64_t i_ = 0;
};

// mac_and_counter runs one MAC block and one counter block through the rounds side by side.
// `m` is the chain without its last round key (see encrypt_to_last) and `first` the MAC
// block's first AESE key; `a` becomes E(K, a).
template <int R>
inline void mac_and_counter(const RoundKeys<R>& rk, uint8x16_t& m, uint8x16_t first,
                            uint8x16_t& a) noexcept {
  m = vaesmcq_u8(vaeseq_u8(m, first));
  a = vaesmcq_u8(vaeseq_u8(a, rk.k[0]));
  for (int r = 1; r < R - 1; ++r) {
    m = vaesmcq_u8(vaeseq_u8(m, rk.k[r]));
    a = vaesmcq_u8(vaeseq_u8(a, rk.k[r]));
  }
  m = vaeseq_u8(m, rk.k[R - 1]);
  a = veorq_u8(vaeseq_u8(a, rk.k[R - 1]), rk.k[R]);
}

class CeCcm final : public AeadImpl {
 public:
  CeCcm(Bytes key, std::size_t tag_len, std::size_t nonce_len)
      : tag_len_(tag_len), nonce_len_(nonce_len) {
    ks_.init(key.data(), key.size());
  }
  ~CeCcm() override { ks_.wipe(); }
  CeCcm(const CeCcm&) = delete;
  CeCcm& operator=(const CeCcm&) = delete;

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
            MutableBytes tag) noexcept override {
    with_rounds(ks_.rounds,
                [&](auto r) { seal_rounds<decltype(r)::value>(nonce, aad, in, out, tag); });
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    return with_rounds(ks_.rounds, [&](auto r) {
      return open_rounds<decltype(r)::value>(nonce, aad, in, out, tag);
    });
  }

 private:
  // Chain is the CBC-MAC state: `m` without its last round key, and the constant that folds
  // that key and round key 0 into the next block's first AESE key.
  template <int R>
  struct Chain {
    const RoundKeys<R>& rk;
    uint8x16_t m;
    uint8x16_t fold;  // round key R ^ round key 0

    uint8x16_t first_key(uint8x16_t block) const noexcept { return veorq_u8(fold, block); }
    void absorb(uint8x16_t block) noexcept { m = encrypt_to_last(rk, m, first_key(block)); }
    uint8x16_t value() const noexcept { return veorq_u8(m, rk.k[R]); }
  };

  // Message is one call's state once B0 and the AAD are absorbed: the counter, the MAC chain
  // and E(K, A0), the tag's mask.
  template <int R>
  struct Message {
    Counter ctr;
    Chain<R> chain;
    uint8x16_t tag_mask;

    uint8x16_t tag() const noexcept { return veorq_u8(chain.value(), tag_mask); }
  };

  // start absorbs B0 (beside E(K, A0)) and the encoded AAD.
  template <int R>
  Message<R> start(const RoundKeys<R>& rk, Bytes nonce, Bytes aad,
                   std::size_t msg_len) const noexcept {
    std::uint8_t b0[16];
    ccm::format_b0(b0, nonce.data(), nonce_len_, tag_len_, aad.size(), msg_len);
    // The chain starts from a zero block, so B0's first key is B0 ^ round key 0 with m = 0.
    Message<R> msg{Counter(nonce.data(), nonce_len_),
                   Chain<R>{rk, vdupq_n_u8(0), veorq_u8(rk.k[R], rk.k[0])}, vdupq_n_u8(0)};
    msg.tag_mask = msg.ctr.a0();
    mac_and_counter(rk, msg.chain.m, veorq_u8(vld1q_u8(b0), rk.k[0]), msg.tag_mask);
    if (aad.empty()) {
      return msg;
    }
    std::uint8_t first[16] = {};
    const std::size_t hdr = ccm::format_aad_length(first, aad.size());
    const std::size_t take = aad.size() < 16 - hdr ? aad.size() : 16 - hdr;
    std::memcpy(first + hdr, aad.data(), take);
    msg.chain.absorb(vld1q_u8(first));
    const std::uint8_t* p = aad.data() + take;
    std::size_t len = aad.size() - take;
    for (; len >= 16; p += 16, len -= 16) {
      msg.chain.absorb(vld1q_u8(p));
    }
    if (len > 0) {
      msg.chain.absorb(load_partial(p, len));
    }
    return msg;
  }

  template <int R>
  void seal_rounds(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
                   MutableBytes tag) const noexcept {
    const RoundKeys<R> rk(ks_.rk);
    Message<R> msg = start(rk, nonce, aad, in.size());
    const std::uint8_t* src = in.data();
    std::uint8_t* dst = out.data();
    // Each block is read before its ciphertext is written: in == out is allowed.
    for (std::size_t len = in.size(); len > 0;) {
      const std::size_t n = len < 16 ? len : 16;
      const uint8x16_t p = n == 16 ? vld1q_u8(src) : load_partial(src, n);
      uint8x16_t keystream = msg.ctr.next();
      mac_and_counter(rk, msg.chain.m, msg.chain.first_key(p), keystream);
      if (n == 16) {
        vst1q_u8(dst, veorq_u8(p, keystream));
      } else {
        xor_partial(src, dst, n, keystream);
      }
      src += n;
      dst += n;
      len -= n;
    }
    std::uint8_t t[16];
    vst1q_u8(t, msg.tag());
    std::memcpy(tag.data(), t, tag_len_);
  }

  template <int R>
  bool open_rounds(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) const noexcept {
    const RoundKeys<R> rk(ks_.rk);
    Message<R> msg = start(rk, nonce, aad, in.size());
    const std::uint8_t* src = in.data();
    std::uint8_t* dst = out.data();
    std::size_t len = in.size();
    if (len > 0) {
      uint8x16_t keystream = msg.ctr.next();
      encrypt_n<R, 1>(rk, &keystream);
      while (len > 0) {
        const std::size_t n = len < 16 ? len : 16;
        uint8x16_t p;
        if (n == 16) {
          p = veorq_u8(vld1q_u8(src), keystream);
          vst1q_u8(dst, p);
        } else {
          xor_partial(src, dst, n, keystream);
          p = load_partial(dst, n);  // zero-padded, as the MAC absorbs it
        }
        keystream = msg.ctr.next();  // one block ahead (unused after the last block)
        mac_and_counter(rk, msg.chain.m, msg.chain.first_key(p), keystream);
        src += n;
        dst += n;
        len -= n;
      }
    }
    std::uint8_t expected[16];
    vst1q_u8(expected, msg.tag());
    const bool ok = ::wireseal::detail::ct_equal(Bytes(expected, tag_len_), tag);
    ::wireseal::detail::secure_wipe(expected, sizeof(expected));
    return ok;
  }

  Schedule ks_;
  std::size_t tag_len_;
  std::size_t nonce_len_;
};

}  // namespace

std::unique_ptr<AeadImpl> make_ce_ccm(Bytes key, std::size_t tag_len, std::size_t nonce_len) {
  return std::make_unique<CeCcm>(key, tag_len, nonce_len);
}

}  // namespace wireseal::crypto::detail
