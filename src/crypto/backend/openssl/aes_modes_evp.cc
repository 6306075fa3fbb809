// Reference AES-CTR / AES-CBC and AES-CMAC backends over OpenSSL EVP, keyed once.
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstring>

#include "backend/interfaces.h"
#include "backend/openssl/evp_util.h"

namespace wireseal::crypto::detail {
namespace {

class EvpAesMode final : public AesModeImpl {
 public:
  EvpAesMode(AesMode mode, Bytes key) : enc_(new_cipher_ctx()), dec_(new_cipher_ctx()) {
    const EVP_CIPHER* cipher = aes_cipher(mode == AesMode::kCtr ? "CTR" : "CBC", key.size());
    set_up_check(EVP_EncryptInit_ex(enc_.get(), cipher, nullptr, key.data(), nullptr), "AES key");
    set_up_check(EVP_DecryptInit_ex(dec_.get(), cipher, nullptr, key.data(), nullptr), "AES key");
    EVP_CIPHER_CTX_set_padding(enc_.get(), 0);
    EVP_CIPHER_CTX_set_padding(dec_.get(), 0);
  }

  void ctr(const std::uint8_t* counter_block, Bytes in, MutableBytes out) noexcept override {
    run(enc_.get(), counter_block, in, out);
  }
  void cbc_encrypt(const std::uint8_t* iv, Bytes in, MutableBytes out) noexcept override {
    run(enc_.get(), iv, in, out);
  }
  void cbc_decrypt(const std::uint8_t* iv, Bytes in, MutableBytes out) noexcept override {
    run(dec_.get(), iv, in, out);
  }

 private:
  static void run(EVP_CIPHER_CTX* ctx, const std::uint8_t* iv, Bytes in,
                  MutableBytes out) noexcept {
    EVP_CipherInit_ex(ctx, nullptr, nullptr, nullptr, iv, -1);
    constexpr std::size_t kChunk = std::size_t{1} << 30;  // whole blocks, fits an int
    std::size_t done = 0;
    while (done < in.size()) {
      const std::size_t n = in.size() - done < kChunk ? in.size() - done : kChunk;
      int len = 0;
      EVP_CipherUpdate(ctx, out.data() + done, &len, in.data() + done, to_int(n));
      done += n;
    }
  }

  EvpCipherCtx enc_;
  EvpCipherCtx dec_;
};

struct EvpMacCtxDeleter {
  void operator()(EVP_MAC_CTX* ctx) const noexcept { EVP_MAC_CTX_free(ctx); }
};

class EvpCmac final : public CmacImpl {
 public:
  explicit EvpCmac(Bytes key) {
    EVP_MAC* mac = EVP_MAC_fetch(nullptr, "CMAC", nullptr);
    if (mac == nullptr) {
      throw std::invalid_argument("EVP_MAC_fetch(CMAC)");
    }
    ctx_.reset(EVP_MAC_CTX_new(mac));
    EVP_MAC_free(mac);
    if (!ctx_) {
      throw std::bad_alloc();
    }
    const char* cipher = key.size() == 16   ? "AES-128-CBC"
                         : key.size() == 24 ? "AES-192-CBC"
                                            : "AES-256-CBC";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, const_cast<char*>(cipher), 0),
        OSSL_PARAM_construct_end()};
    set_up_check(EVP_MAC_init(ctx_.get(), key.data(), key.size(), params), "CMAC key");
  }

  void compute(Bytes message, std::uint8_t* mac16) noexcept override {
    // A NULL key restarts the MAC with the key already scheduled.
    EVP_MAC_init(ctx_.get(), nullptr, 0, nullptr);
    EVP_MAC_update(ctx_.get(), message.data(), message.size());
    std::size_t len = 0;
    EVP_MAC_final(ctx_.get(), mac16, &len, 16);
  }

 private:
  std::unique_ptr<EVP_MAC_CTX, EvpMacCtxDeleter> ctx_;
};

}  // namespace

std::unique_ptr<AesModeImpl> make_openssl_aes_mode(AesMode mode, Bytes key) {
  return std::make_unique<EvpAesMode>(mode, key);
}

std::unique_ptr<CmacImpl> make_openssl_cmac(Bytes key) {
  if (key.size() != 16 && key.size() != 24 && key.size() != 32) {
    throw std::invalid_argument("wireseal: AES key must be 16, 24 or 32 bytes");
  }
  return std::make_unique<EvpCmac>(key);
}

}  // namespace wireseal::crypto::detail
