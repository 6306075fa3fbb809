// Reference AEAD backend: OpenSSL EVP used the careful way. The key is scheduled once per
// direction; each message only sets the nonce (EVP_CipherInit_ex with NULL cipher and key).
#include <climits>
#include <cstring>

#include "backend/interfaces.h"
#include "backend/openssl/evp_util.h"

namespace wireseal::crypto::detail {
namespace {

// update_chunked feeds `len` bytes to EVP_CipherUpdate in pieces OpenSSL's int can express.
bool update_chunked(EVP_CIPHER_CTX* ctx, std::uint8_t* out, const std::uint8_t* in,
                    std::size_t len) noexcept {
  constexpr std::size_t kChunk = std::size_t{1} << 30;
  while (len > 0) {
    const std::size_t n = len < kChunk ? len : kChunk;
    int out_len = 0;
    if (EVP_CipherUpdate(ctx, out, &out_len, in, to_int(n)) != 1) {
      return false;
    }
    if (out != nullptr) {
      out += n;
    }
    in += n;
    len -= n;
  }
  return true;
}

// EvpAead covers GCM and ChaCha20-Poly1305, whose EVP call sequence is identical.
class EvpAead final : public AeadImpl {
 public:
  EvpAead(const EVP_CIPHER* cipher, Bytes key, std::size_t tag_len)
      : enc_(new_cipher_ctx()), dec_(new_cipher_ctx()), tag_len_(tag_len) {
    set_up_check(EVP_EncryptInit_ex(enc_.get(), cipher, nullptr, key.data(), nullptr),
                 "EVP_EncryptInit_ex");
    set_up_check(EVP_DecryptInit_ex(dec_.get(), cipher, nullptr, key.data(), nullptr),
                 "EVP_DecryptInit_ex");
  }

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
            MutableBytes tag) noexcept override {
    EVP_CIPHER_CTX* ctx = enc_.get();
    int len = 0;
    EVP_EncryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data());
    if (!aad.empty()) {
      update_chunked(ctx, nullptr, aad.data(), aad.size());
    }
    if (!in.empty()) {
      update_chunked(ctx, out.data(), in.data(), in.size());
    }
    EVP_EncryptFinal_ex(ctx, out.data() + in.size(), &len);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, to_int(tag_len_), tag.data());
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    EVP_CIPHER_CTX* ctx = dec_.get();
    int len = 0;
    EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data());
    if (!aad.empty()) {
      update_chunked(ctx, nullptr, aad.data(), aad.size());
    }
    if (!in.empty()) {
      update_chunked(ctx, out.data(), in.data(), in.size());
    }
    // EVP wants a non-const tag pointer; it only reads it.
    std::uint8_t expected[16];
    std::memcpy(expected, tag.data(), tag_len_);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, to_int(tag_len_), expected);
    return EVP_DecryptFinal_ex(ctx, out.data() + in.size(), &len) == 1;
  }

 private:
  EvpCipherCtx enc_;
  EvpCipherCtx dec_;
  std::size_t tag_len_;
};

// EvpCcm: CCM needs the total length before the AAD and the tag before decrypting.
//
// Opening does not use OpenSSL's CCM decryption: on a wrong tag its provider raises an error,
// which allocates and leaves an entry on the caller's thread error queue, so forged packets
// would cost heap allocations. Instead the payload is decrypted with AES-CTR from counter 1,
// re-sealed to recompute the tag, and decrypted again (three passes: this backend is the
// reference and the fallback on CPUs without AES-NI, not the fast path).
class EvpCcm final : public AeadImpl {
 public:
  EvpCcm(const EVP_CIPHER* cipher, Bytes key, std::size_t tag_len, std::size_t nonce_len)
      : enc_(new_cipher_ctx()), ctr_(new_cipher_ctx()), tag_len_(tag_len), nonce_len_(nonce_len) {
    set_up_check(EVP_EncryptInit_ex(enc_.get(), cipher, nullptr, nullptr, nullptr),
                 "EVP_EncryptInit_ex");
    set_up_check(
        EVP_CIPHER_CTX_ctrl(enc_.get(), EVP_CTRL_AEAD_SET_IVLEN, to_int(nonce_len), nullptr),
        "CCM IV length");
    set_up_check(EVP_CIPHER_CTX_ctrl(enc_.get(), EVP_CTRL_AEAD_SET_TAG, to_int(tag_len), nullptr),
                 "CCM tag length");
    set_up_check(EVP_EncryptInit_ex(enc_.get(), nullptr, nullptr, key.data(), nullptr), "CCM key");
    set_up_check(
        EVP_EncryptInit_ex(ctr_.get(), aes_cipher("CTR", key.size()), nullptr, key.data(), nullptr),
        "CTR key");
  }

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
            MutableBytes tag) noexcept override {
    EVP_CIPHER_CTX* ctx = enc_.get();
    int len = 0;
    EVP_EncryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data());
    EVP_EncryptUpdate(ctx, nullptr, &len, nullptr, to_int(in.size()));
    if (!aad.empty()) {
      EVP_EncryptUpdate(ctx, nullptr, &len, aad.data(), to_int(aad.size()));
    }
    // CCM computes the tag in this call, so it must happen even for an empty message.
    std::uint8_t dummy = 0;
    EVP_EncryptUpdate(ctx, in.empty() ? &dummy : out.data(), &len, in.empty() ? &dummy : in.data(),
                      to_int(in.size()));
    EVP_EncryptFinal_ex(ctx, &dummy, &len);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, to_int(tag_len_), tag.data());
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    // A_1 = flags (q - 1) || nonce || counter 1 (SP 800-38C A.3).
    std::uint8_t a1[16] = {};
    a1[0] = static_cast<std::uint8_t>(15 - nonce_len_ - 1);
    std::memcpy(a1 + 1, nonce.data(), nonce_len_);
    a1[15] = 1;
    ctr(a1, in.data(), out.data(), in.size());  // out = plaintext
    std::uint8_t expected[16];
    seal(nonce, aad, {out.data(), in.size()}, out, {expected, tag_len_});  // out = ciphertext
    ctr(a1, out.data(), out.data(), in.size());                            // out = plaintext again
    return ct_equal(std::span<const std::uint8_t>(expected, tag_len_), tag);
  }

 private:
  void ctr(const std::uint8_t* counter_block, const std::uint8_t* in, std::uint8_t* out,
           std::size_t len) noexcept {
    EVP_EncryptInit_ex(ctr_.get(), nullptr, nullptr, nullptr, counter_block);
    update_chunked(ctr_.get(), out, in, len);
  }

  EvpCipherCtx enc_;
  EvpCipherCtx ctr_;
  std::size_t tag_len_;
  std::size_t nonce_len_;
};

}  // namespace

const EVP_CIPHER* aes_cipher(const char* mode, std::size_t key_len) {
  const bool gcm = std::strcmp(mode, "GCM") == 0;
  const bool ccm = std::strcmp(mode, "CCM") == 0;
  const bool ctr = std::strcmp(mode, "CTR") == 0;
  switch (key_len) {
    case 16:
      return gcm   ? EVP_aes_128_gcm()
             : ccm ? EVP_aes_128_ccm()
             : ctr ? EVP_aes_128_ctr()
                   : EVP_aes_128_cbc();
    case 24:
      return gcm   ? EVP_aes_192_gcm()
             : ccm ? EVP_aes_192_ccm()
             : ctr ? EVP_aes_192_ctr()
                   : EVP_aes_192_cbc();
    case 32:
      return gcm   ? EVP_aes_256_gcm()
             : ccm ? EVP_aes_256_ccm()
             : ctr ? EVP_aes_256_ctr()
                   : EVP_aes_256_cbc();
    default:
      throw std::invalid_argument("wireseal: AES key must be 16, 24 or 32 bytes");
  }
}

std::unique_ptr<AeadImpl> make_openssl_aead(AeadAlgorithm algorithm, Bytes key, std::size_t tag_len,
                                            std::size_t nonce_len) {
  switch (algorithm) {
    case AeadAlgorithm::kAes128Gcm:
    case AeadAlgorithm::kAes192Gcm:
    case AeadAlgorithm::kAes256Gcm:
      return std::make_unique<EvpAead>(aes_cipher("GCM", key.size()), key, tag_len);
    case AeadAlgorithm::kAes128Ccm:
    case AeadAlgorithm::kAes192Ccm:
    case AeadAlgorithm::kAes256Ccm:
      return std::make_unique<EvpCcm>(aes_cipher("CCM", key.size()), key, tag_len, nonce_len);
    case AeadAlgorithm::kChaCha20Poly1305:
      return std::make_unique<EvpAead>(EVP_chacha20_poly1305(), key, tag_len);
  }
  throw std::invalid_argument("wireseal: unknown AEAD");
}

}  // namespace wireseal::crypto::detail
