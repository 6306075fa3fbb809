#pragma once
// One running SHA-1/SHA-2 hash in a HashState: OpenSSL's low-level SHA*_CTX functions on plain
// data, so a state can be saved, copied by value onto the stack and finished with no
// allocation. They are deprecated in OpenSSL 3 in favour of EVP_MD/EVP_MAC, whose per-message
// context set-up is exactly what Hash and Hmac exist to avoid. Include this header first, so
// the suppression below precedes every OpenSSL header in the file.
#ifndef OPENSSL_SUPPRESS_DEPRECATED
#define OPENSSL_SUPPRESS_DEPRECATED 1
#endif
#include <openssl/sha.h>

#include <cstddef>
#include <cstdint>

#include "wireseal/crypto/hash.h"

namespace wireseal::crypto::detail {

static_assert(sizeof(SHA512_CTX) <= sizeof(HashState), "HashState too small");
static_assert(sizeof(SHA256_CTX) <= sizeof(HashState), "HashState too small");
static_assert(sizeof(SHA_CTX) <= sizeof(HashState), "HashState too small");

template <class Ctx>
Ctx* as(HashState& s) noexcept {
  return reinterpret_cast<Ctx*>(s.bytes);
}
template <class Ctx>
const Ctx* as(const HashState& s) noexcept {
  return reinterpret_cast<const Ctx*>(s.bytes);
}

inline void hash_init(HashAlgorithm hash, HashState& s) noexcept {
  switch (hash) {
    case HashAlgorithm::kSha1:
      SHA1_Init(as<SHA_CTX>(s));
      break;
    case HashAlgorithm::kSha224:
      SHA224_Init(as<SHA256_CTX>(s));
      break;
    case HashAlgorithm::kSha256:
      SHA256_Init(as<SHA256_CTX>(s));
      break;
    case HashAlgorithm::kSha384:
      SHA384_Init(as<SHA512_CTX>(s));
      break;
    case HashAlgorithm::kSha512:
      SHA512_Init(as<SHA512_CTX>(s));
      break;
  }
}

inline void hash_update(HashAlgorithm hash, HashState& s, const std::uint8_t* data,
                        std::size_t len) noexcept {
  switch (hash) {
    case HashAlgorithm::kSha1:
      SHA1_Update(as<SHA_CTX>(s), data, len);
      break;
    case HashAlgorithm::kSha224:
    case HashAlgorithm::kSha256:
      SHA256_Update(as<SHA256_CTX>(s), data, len);
      break;
    case HashAlgorithm::kSha384:
    case HashAlgorithm::kSha512:
      SHA512_Update(as<SHA512_CTX>(s), data, len);
      break;
  }
}

inline void hash_final(HashAlgorithm hash, HashState& s, std::uint8_t* out) noexcept {
  switch (hash) {
    case HashAlgorithm::kSha1:
      SHA1_Final(out, as<SHA_CTX>(s));
      break;
    case HashAlgorithm::kSha224:
      SHA224_Final(out, as<SHA256_CTX>(s));
      break;
    case HashAlgorithm::kSha256:
      SHA256_Final(out, as<SHA256_CTX>(s));
      break;
    case HashAlgorithm::kSha384:
      SHA384_Final(out, as<SHA512_CTX>(s));
      break;
    case HashAlgorithm::kSha512:
      SHA512_Final(out, as<SHA512_CTX>(s));
      break;
  }
}

}  // namespace wireseal::crypto::detail
