// The native ChaCha20-Poly1305 AEAD (RFC 8439, section 2.8): the AVX-512 keystream
// (chacha20_avx512.cc) and the 64-bit Poly1305 (poly1305.cc). Small records are the point: one
// four-block group gives the Poly1305 key (block 0) and the first 192 bytes of keystream, so a
// record of up to 192 bytes costs one group of rounds, with no per-call set-up beyond it.
//
// Records longer than kNativeChaChaOwnMax (native.h) go to ipsec-mb's ChaCha20-Poly1305 when the
// build and CPU have it: its vector Poly1305 absorbs long messages about twice as fast as our
// scalar one, while its fixed cost per call (~400 ns on Zen 5) loses on short records. Measured on
// Zen 5, seal: ours 213 ns at 16 B, 451 at 512 B, 774 at 1400 B; ipsec-mb's 398, 461, 695. Compiled
// without ISA flags; made only when features().avx512f (native_select.cc).
#include <algorithm>
#include <cstring>

#include "backend/native.h"
#include "backend/x86/aesni_objects.h"
#include "backend/x86/chacha20_avx512.h"
#include "backend/x86/poly1305.h"
#include "common/bytes.h"
#include "common/ct.h"

namespace wireseal::crypto::detail {
namespace {

constexpr std::size_t kFirstKeystream = 192;  // blocks 1..3 of the first group

class NativeChaChaPoly final : public AeadImpl {
 public:
  NativeChaChaPoly(Bytes key, std::unique_ptr<AeadImpl> bulk) noexcept : bulk_(std::move(bulk)) {
    for (std::size_t i = 0; i < 8; ++i) {
      key_[i] = load_le32(key.data() + 4 * i);
    }
  }
  ~NativeChaChaPoly() override { wireseal::detail::secure_wipe(key_, sizeof(key_)); }
  NativeChaChaPoly(const NativeChaChaPoly&) = delete;
  NativeChaChaPoly& operator=(const NativeChaChaPoly&) = delete;

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
            MutableBytes tag) noexcept override {
    if (bulk_ != nullptr && in.size() > kNativeChaChaOwnMax) {
      bulk_->seal(nonce, aad, in, out, tag);
      return;
    }
    Message m(key_, nonce, aad);
    const std::size_t len = in.size();
    m.xor_head(in.data(), out.data(), len);
    if (len <= kFirstKeystream) {
      m.poly.update_padded(out.data(), len);
    } else {
      chacha20_poly1305_bulk_avx512(key_, m.nonce, out.data(), in.data(), kFirstKeystream, len,
                                    m.poly.state(), /*mac_output=*/true);
    }
    m.poly.update_lengths(aad.size(), len);
    m.poly.finish(tag.data());
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    if (bulk_ != nullptr && in.size() > kNativeChaChaOwnMax) {
      return bulk_->open(nonce, aad, in, out, tag);
    }
    Message m(key_, nonce, aad);
    const std::size_t len = in.size();
    // The tag covers the ciphertext, which `out` may overwrite in place: each part is
    // absorbed before it is decrypted.
    if (len <= kFirstKeystream) {
      m.poly.update_padded(in.data(), len);
    } else {
      chacha20_poly1305_bulk_avx512(key_, m.nonce, out.data(), in.data(), kFirstKeystream, len,
                                    m.poly.state(), /*mac_output=*/false);
    }
    m.xor_head(in.data(), out.data(), len);
    m.poly.update_lengths(aad.size(), len);
    std::uint8_t expected[16];
    m.poly.finish(expected);
    const bool ok = ct_equal(std::span<const std::uint8_t>(expected, 16), tag);
    wireseal::detail::secure_wipe(expected, sizeof(expected));
    return ok;
  }

 private:
  // Message is one record's first keystream group (Poly1305 key, then keystream) and its
  // Poly1305 state after the associated data.
  struct Message {
    Message(const std::uint32_t key[8], Bytes nonce_bytes, Bytes aad) noexcept
        : nonce{load_le32(nonce_bytes.data()), load_le32(nonce_bytes.data() + 4),
                load_le32(nonce_bytes.data() + 8)},
          poly(first_group(key, nonce, first)) {
      poly.update_padded(aad.data(), aad.size());
    }
    ~Message() { wireseal::detail::secure_wipe(first, sizeof(first)); }
    Message(const Message&) = delete;
    Message& operator=(const Message&) = delete;

    // first_group writes blocks 0..3 to `group` and returns it: block 0 begins with the
    // Poly1305 key.
    static const std::uint8_t* first_group(const std::uint32_t key[8], const std::uint32_t nonce[3],
                                           std::uint8_t* group) noexcept {
      chacha20_blocks4_avx512(key, nonce, 0, group);
      return group;
    }

    // xor_head XORs the first min(len, 192) bytes with blocks 1..3.
    void xor_head(const std::uint8_t* in, std::uint8_t* out, std::size_t len) const noexcept {
      const std::size_t head = std::min(len, kFirstKeystream);
      for (std::size_t i = 0; i < head; ++i) {
        out[i] = static_cast<std::uint8_t>(in[i] ^ first[64 + i]);
      }
    }

    std::uint32_t nonce[3];
    alignas(64) std::uint8_t first[256];
    Poly1305 poly;
  };

  std::uint32_t key_[8];
  std::unique_ptr<AeadImpl> bulk_;  // ipsec-mb's, for long records; null without it
};

}  // namespace

std::unique_ptr<AeadImpl> make_native_chacha20_poly1305(Bytes key, bool own_kernel_only) {
  std::unique_ptr<AeadImpl> bulk;
  if (!own_kernel_only && ipsecmb_supports(Primitive::kChaCha20Poly1305)) {
    bulk = make_ipsecmb_aead(AeadAlgorithm::kChaCha20Poly1305, key, 16, 12);
  }
  return std::make_unique<NativeChaChaPoly>(key, std::move(bulk));
}

}  // namespace wireseal::crypto::detail
