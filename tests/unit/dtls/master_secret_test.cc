// dtls::master_secret and extended_master_secret (RFC 5246 §8.1, RFC 7627 §4) against OpenSSL's
// EVP_KDF "TLS1-PRF" given the same label and seed: an independent implementation, whose PRF
// itself is checked on the published TLS 1.2 PRF vectors in tests/unit/crypto.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <array>
#include <string>
#include <vector>

#include "support/hex.h"
#include "wireseal/dtls/key_block.h"

namespace wireseal::test {
namespace {

using Bytes = std::vector<std::uint8_t>;
using crypto::HashAlgorithm;

Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<std::uint8_t>(seed * 31 + i * 7);
  }
  return b;
}

// openssl_prf is PRF(secret, label, seed) from OpenSSL, 48 bytes.
Bytes openssl_prf(HashAlgorithm hash, Bytes secret, const std::string& label, const Bytes& seed) {
  std::string digest = hash == HashAlgorithm::kSha256 ? "SHA256" : "SHA384";
  Bytes label_seed(label.begin(), label.end());
  label_seed.insert(label_seed.end(), seed.begin(), seed.end());
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest.data(), 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SECRET, secret.data(), secret.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SEED, label_seed.data(), label_seed.size()),
      OSSL_PARAM_construct_end()};
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, OSSL_KDF_NAME_TLS1_PRF, nullptr);
  EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
  Bytes out(dtls::kMasterSecretSize);
  const int ok = EVP_KDF_derive(ctx, out.data(), out.size(), params);
  EVP_KDF_CTX_free(ctx);
  EVP_KDF_free(kdf);
  EXPECT_EQ(ok, 1);
  return out;
}

class MasterSecret : public ::testing::TestWithParam<HashAlgorithm> {};

TEST_P(MasterSecret, MatchesOpenSslForEveryPreMasterSecretShape) {
  // 48 bytes (RSA), 32 (X25519), 65 and 97 (P-256 / P-384 shared x with a PSK-style prefix),
  // 130 (a PSK premaster).
  for (const std::size_t pms_len : {48u, 32u, 65u, 97u, 130u}) {
    const Bytes pms = pattern(pms_len, static_cast<std::uint8_t>(pms_len));
    const Bytes client_random = pattern(dtls::kRandomSize, 1);
    const Bytes server_random = pattern(dtls::kRandomSize, 2);
    std::array<std::uint8_t, dtls::kMasterSecretSize> got{};
    ASSERT_TRUE(dtls::master_secret(
        GetParam(), pms, std::span<const std::uint8_t, dtls::kRandomSize>(client_random),
        std::span<const std::uint8_t, dtls::kRandomSize>(server_random), got));
    Bytes seed = client_random;
    seed.insert(seed.end(), server_random.begin(), server_random.end());
    EXPECT_EQ(to_hex(got), to_hex(openssl_prf(GetParam(), pms, "master secret", seed))) << pms_len;
  }
}

TEST_P(MasterSecret, ExtendedMatchesOpenSslForEverySessionHashLength) {
  const Bytes pms = pattern(48, 9);
  for (const std::size_t hash_len : {20u, 32u, 48u, 64u}) {
    const Bytes session_hash = pattern(hash_len, static_cast<std::uint8_t>(hash_len));
    std::array<std::uint8_t, dtls::kMasterSecretSize> got{};
    ASSERT_TRUE(dtls::extended_master_secret(GetParam(), pms, session_hash, got));
    EXPECT_EQ(to_hex(got),
              to_hex(openssl_prf(GetParam(), pms, "extended master secret", session_hash)))
        << hash_len;
  }
}

INSTANTIATE_TEST_SUITE_P(Prf, MasterSecret,
                         ::testing::Values(HashAlgorithm::kSha256, HashAlgorithm::kSha384),
                         [](const auto& p) {
                           return p.param == HashAlgorithm::kSha256 ? "SHA256" : "SHA384";
                         });

}  // namespace
}  // namespace wireseal::test
