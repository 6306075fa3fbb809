#include "support/openssl_kdf.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/kdf.h>

#include <string>

namespace wireseal::test {

std::vector<std::uint8_t> openssl_kdf(const char* name, OSSL_PARAM* params, std::size_t n) {
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, name, nullptr);
  if (kdf == nullptr) {
    ADD_FAILURE() << "OpenSSL has no KDF " << name;
    return {};
  }
  EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
  std::vector<std::uint8_t> out(n);
  const int ok = EVP_KDF_derive(ctx, out.data(), out.size(), params);
  EVP_KDF_CTX_free(ctx);
  EVP_KDF_free(kdf);
  if (ok != 1) {
    ADD_FAILURE() << "EVP_KDF_derive(" << name << ") failed";
    return {};
  }
  return out;
}

std::vector<std::uint8_t> openssl_tls12_prf(crypto::HashAlgorithm hash,
                                            std::span<const std::uint8_t> secret,
                                            std::string_view label,
                                            std::span<const std::uint8_t> seed, std::size_t n) {
  // OSSL_PARAM takes non-const pointers: hand it copies.
  std::string digest = hash == crypto::HashAlgorithm::kSha256 ? "SHA256" : "SHA384";
  std::vector<std::uint8_t> secret_copy(secret.begin(), secret.end());
  std::vector<std::uint8_t> label_seed(label.begin(), label.end());
  label_seed.insert(label_seed.end(), seed.begin(), seed.end());
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest.data(), 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SECRET, secret_copy.data(),
                                        secret_copy.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SEED, label_seed.data(), label_seed.size()),
      OSSL_PARAM_construct_end()};
  return openssl_kdf(OSSL_KDF_NAME_TLS1_PRF, params, n);
}

}  // namespace wireseal::test
