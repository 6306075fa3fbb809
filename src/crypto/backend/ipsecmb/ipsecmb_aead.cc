// AES-GCM and ChaCha20-Poly1305 through Intel ipsec-mb's direct (non-job) API.
//
// The direct API is stateless apart from the caller's gcm_context_data, which lives on our
// stack, so one process-wide manager (used only for its function pointers, picked for this
// CPU by init_mb_mgr_auto) serves every key object and every thread.
#include <intel-ipsec-mb.h>

#include <cstring>
#include <stdexcept>

#include "common/ct.h"
#include "crypto/impl.h"

namespace wireseal::crypto::detail {
namespace {

IMB_MGR* manager() {
  static IMB_MGR* const mgr = [] {
    IMB_MGR* m = alloc_mb_mgr(0);
    if (m == nullptr) {
      throw std::bad_alloc();
    }
    IMB_ARCH arch;
    init_mb_mgr_auto(m, &arch);
    return m;
  }();
  return mgr;
}

class IpsecMbGcm final : public AeadImpl {
 public:
  IpsecMbGcm(Bytes key, std::size_t tag_len) : mgr_(manager()), key_len_(key.size()), tag_len_(tag_len) {
    switch (key_len_) {
      case 16:
        IMB_AES128_GCM_PRE(mgr_, key.data(), &key_);
        break;
      case 24:
        IMB_AES192_GCM_PRE(mgr_, key.data(), &key_);
        break;
      default:
        IMB_AES256_GCM_PRE(mgr_, key.data(), &key_);
        break;
    }
  }
  ~IpsecMbGcm() override { secure_wipe(&key_, sizeof(key_)); }

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, MutableBytes tag) noexcept override {
    gcm_context_data ctx;
    switch (key_len_) {
      case 16:
        IMB_AES128_GCM_ENC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(), aad.data(),
                         aad.size(), tag.data(), tag_len_);
        break;
      case 24:
        IMB_AES192_GCM_ENC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(), aad.data(),
                         aad.size(), tag.data(), tag_len_);
        break;
      default:
        IMB_AES256_GCM_ENC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(), aad.data(),
                         aad.size(), tag.data(), tag_len_);
        break;
    }
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    gcm_context_data ctx;
    std::uint8_t expected[16];
    switch (key_len_) {
      case 16:
        IMB_AES128_GCM_DEC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(), aad.data(),
                         aad.size(), expected, tag_len_);
        break;
      case 24:
        IMB_AES192_GCM_DEC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(), aad.data(),
                         aad.size(), expected, tag_len_);
        break;
      default:
        IMB_AES256_GCM_DEC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(), aad.data(),
                         aad.size(), expected, tag_len_);
        break;
    }
    return ct_equal(std::span<const std::uint8_t>(expected, tag_len_), tag);
  }

 private:
  IMB_MGR* mgr_;
  std::size_t key_len_;
  std::size_t tag_len_;
  gcm_key_data key_;
};

class IpsecMbChaChaPoly final : public AeadImpl {
 public:
  explicit IpsecMbChaChaPoly(Bytes key) : mgr_(manager()) { std::memcpy(key_, key.data(), 32); }
  ~IpsecMbChaChaPoly() override { secure_wipe(key_, sizeof(key_)); }

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, MutableBytes tag) noexcept override {
    chacha20_poly1305_context_data ctx;
    IMB_CHACHA20_POLY1305_INIT(mgr_, key_, &ctx, nonce.data(), aad.data(), aad.size());
    IMB_CHACHA20_POLY1305_ENC_UPDATE(mgr_, key_, &ctx, out.data(), in.data(), in.size());
    IMB_CHACHA20_POLY1305_ENC_FINALIZE(mgr_, &ctx, tag.data(), 16);
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    chacha20_poly1305_context_data ctx;
    std::uint8_t expected[16];
    IMB_CHACHA20_POLY1305_INIT(mgr_, key_, &ctx, nonce.data(), aad.data(), aad.size());
    IMB_CHACHA20_POLY1305_DEC_UPDATE(mgr_, key_, &ctx, out.data(), in.data(), in.size());
    IMB_CHACHA20_POLY1305_DEC_FINALIZE(mgr_, &ctx, expected, 16);
    return ct_equal(std::span<const std::uint8_t>(expected, 16), tag);
  }

 private:
  IMB_MGR* mgr_;
  // ipsec-mb's AVX2 ChaCha20 loads the key in 32-byte reads starting 16 bytes in: valgrind
  // caught it reading 16 bytes past a 32-byte key. The tail is zero and never used.
  alignas(32) std::uint8_t key_[64] = {};
};

}  // namespace

bool ipsecmb_supports(Primitive primitive) noexcept {
  const CpuFeatures& cpu = cpu_features();
  switch (primitive) {
    case Primitive::kAesGcm:
      return cpu.aesni && cpu.pclmulqdq;
    case Primitive::kChaCha20Poly1305:
      return cpu.avx2;
    default:
      return false;
  }
}

std::unique_ptr<AeadImpl> make_ipsecmb_aead(AeadAlgorithm algorithm, Bytes key, std::size_t tag_len,
                                            std::size_t /*nonce_len*/) {
  switch (algorithm) {
    case AeadAlgorithm::kAes128Gcm:
    case AeadAlgorithm::kAes192Gcm:
    case AeadAlgorithm::kAes256Gcm:
      return std::make_unique<IpsecMbGcm>(key, tag_len);
    case AeadAlgorithm::kChaCha20Poly1305:
      return std::make_unique<IpsecMbChaChaPoly>(key);
    default:
      throw std::invalid_argument("wireseal: ipsec-mb backend has no " + std::string(to_string(algorithm)));
  }
}

}  // namespace wireseal::crypto::detail
