#pragma once
// Small RAII and cast helpers for OpenSSL EVP objects used by the reference backend.

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>

namespace wireseal::crypto::detail {

struct EvpCipherCtxDeleter {
  void operator()(EVP_CIPHER_CTX* ctx) const noexcept { EVP_CIPHER_CTX_free(ctx); }
};
using EvpCipherCtx = std::unique_ptr<EVP_CIPHER_CTX, EvpCipherCtxDeleter>;

inline EvpCipherCtx new_cipher_ctx() {
  EvpCipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) {
    throw std::bad_alloc();
  }
  return ctx;
}

// set_up_check turns an OpenSSL set-up failure into the set-up exception wireseal promises.
inline void set_up_check(int ok, const char* what) {
  if (ok != 1) {
    throw std::invalid_argument(what);
  }
}

// OpenSSL takes int lengths; wireseal's front ends bound sizes well below INT_MAX per call
// except for pathological spans, which we split.
inline int to_int(std::size_t n) noexcept { return static_cast<int>(n); }

// aes_cipher returns the EVP cipher for an AES mode and key size ("CTR", "CBC", "GCM", "CCM").
const EVP_CIPHER* aes_cipher(const char* mode, std::size_t key_len);

}  // namespace wireseal::crypto::detail
