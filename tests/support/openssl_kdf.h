#pragma once
// OpenSSL's EVP_KDF as the independent reference of the KDF tests: any KDF by name, and the
// TLS 1.2 PRF (RFC 5246 §5, OpenSSL's "TLS1-PRF") that the crypto and DTLS tests both hold
// wireseal's PRF and master-secret derivations against.

#include <openssl/params.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "wireseal/crypto/hash.h"

namespace wireseal::test {

// openssl_kdf runs the OpenSSL EVP_KDF `name` with `params` and returns `n` bytes; on an error
// it adds a gtest failure and returns no bytes.
std::vector<std::uint8_t> openssl_kdf(const char* name, OSSL_PARAM* params, std::size_t n);

// openssl_tls12_prf is PRF(secret, label, seed) with `hash` (SHA-256 or SHA-384), `n` bytes.
std::vector<std::uint8_t> openssl_tls12_prf(crypto::HashAlgorithm hash,
                                            std::span<const std::uint8_t> secret,
                                            std::string_view label,
                                            std::span<const std::uint8_t> seed, std::size_t n);

}  // namespace wireseal::test
