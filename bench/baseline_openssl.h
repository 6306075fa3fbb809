#pragma once
// The OpenSSL baseline: the same work as the wireseal benchmarks, done through OpenSSL 3 EVP the
// way a careful user would. Keys are scheduled once per context at construction; per message
// only the IV is set (EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv)) or the MAC context is
// restarted with EVP_MAC_init(ctx, NULL, 0, ...). Nothing here re-keys or fetches per message,
// so the comparison measures the implementations, not a naive use of the API.
//
// Set-up failures throw std::runtime_error; per-message calls return false on failure.

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace wireseal::bench::openssl {

using In = std::span<const std::uint8_t>;
using Out = std::span<std::uint8_t>;

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* ctx) const noexcept { EVP_CIPHER_CTX_free(ctx); }
};
struct MacCtxFree {
  void operator()(EVP_MAC_CTX* ctx) const noexcept { EVP_MAC_CTX_free(ctx); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;
using MacCtx = std::unique_ptr<EVP_MAC_CTX, MacCtxFree>;

// Aead: GCM, CCM or ChaCha20-Poly1305 ("AES-128-GCM", "AES-256-CCM", "ChaCha20-Poly1305")
// with a detached tag, one keyed context per direction.
class Aead {
 public:
  Aead(const char* cipher, In key, std::size_t tag_len, std::size_t nonce_len);
  bool seal(In nonce, In aad, In in, Out out, Out tag) noexcept;
  bool open(In nonce, In aad, In in, Out out, In tag) noexcept;

 private:
  CipherCtx enc_;
  CipherCtx dec_;
  bool ccm_;
  std::size_t tag_len_;
};

// Cipher: an unauthenticated mode ("AES-128-CTR", "AES-128-CBC" without padding) in one
// direction.
class Cipher {
 public:
  Cipher(const char* cipher, In key, bool encrypt);
  bool apply(In iv, In in, Out out) noexcept;

 private:
  CipherCtx ctx_;
};

// Mac: EVP_MAC ("HMAC" with a digest, "CMAC" with a CBC cipher, "GMAC" with a GCM cipher).
// `algorithm_param` is "digest" or "cipher" and `algorithm` its value.
class Mac {
 public:
  Mac(const char* mac, const char* algorithm_param, const char* algorithm, In key);
  // compute writes the whole MAC (out.size() must be its length). For GMAC pass the 12-byte
  // IV; the others take an empty one.
  bool compute(In iv, In message, Out out) noexcept;

 private:
  MacCtx ctx_;
};

}  // namespace wireseal::bench::openssl
