// The native ChaCha20-Poly1305 AEAD (RFC 8439, section 2.8): the AVX-512 keystream with the
// 64-bit Poly1305 (chacha20_avx512.cc, poly1305.h). Small records are the point: one four-block
// group gives the Poly1305 key (block 0) and the first 192 bytes of keystream, so a record of up
// to 192 bytes costs one group of rounds, and key, keystream and text stay in registers.
//
// Records longer than kNativeChaChaOwnMax (native.h) go to ipsec-mb's ChaCha20-Poly1305 when the
// build and CPU have it: its vector Poly1305 absorbs long messages about twice as fast as our
// scalar one, while its fixed cost per call (~400 ns on Zen 5) loses on short records. Measured on
// Zen 5 when this split was set, seal: ours 178 ns at 16 B, 451 at 512 B, 774 at 1400 B;
// ipsec-mb's 398, 461, 695 (our kernel has gained since; `wireseal bench` prints current rows).
// Compiled without ISA flags; made only when features().avx512f and avx512bw (native_select.cc).
#include "backend/native.h"
#include "backend/x86/aesni_objects.h"
#include "backend/x86/chacha20_avx512.h"
#include "backend/x86/poly1305.h"
#include "common/bytes.h"
#include "common/ct.h"

namespace wireseal::crypto::detail {
namespace {

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
    Poly1305State poly;
    run(nonce, aad, in, out, poly, /*sealing=*/true);
    poly1305_finish(poly, tag.data());
    wireseal::detail::wipe_small(&poly, sizeof(poly));
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    if (bulk_ != nullptr && in.size() > kNativeChaChaOwnMax) {
      return bulk_->open(nonce, aad, in, out, tag);
    }
    Poly1305State poly;
    run(nonce, aad, in, out, poly, /*sealing=*/false);
    std::uint8_t expected[16];
    poly1305_finish(poly, expected);
    const bool ok = ct_equal(std::span<const std::uint8_t>(expected, 16), tag);
    wireseal::detail::wipe_small(&poly, sizeof(poly));
    wireseal::detail::wipe_small(expected, sizeof(expected));
    return ok;
  }

 private:
  void run(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Poly1305State& poly,
           bool sealing) const noexcept {
    const std::uint32_t nonce_words[3] = {load_le32(nonce.data()), load_le32(nonce.data() + 4),
                                          load_le32(nonce.data() + 8)};
    const ChaChaPolyRecord record{key_,      nonce_words, aad.data(), aad.size(),
                                  in.data(), out.data(),  in.size()};
    chacha20_poly1305_avx512(record, poly, sealing);
  }

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
