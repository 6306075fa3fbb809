// dtls::master_secret and extended_master_secret (RFC 5246 §8.1, RFC 7627 §4) against OpenSSL's
// EVP_KDF "TLS1-PRF" given the same label and seed: an independent implementation, whose PRF
// itself is checked on the published TLS 1.2 PRF vectors in tests/unit/crypto.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "support/hex.h"
#include "support/openssl_kdf.h"
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
    EXPECT_EQ(to_hex(got), to_hex(openssl_tls12_prf(GetParam(), pms, "master secret", seed,
                                                    dtls::kMasterSecretSize)))
        << pms_len;
  }
}

TEST_P(MasterSecret, ExtendedMatchesOpenSslForEverySessionHashLength) {
  const Bytes pms = pattern(48, 9);
  for (const std::size_t hash_len : {20u, 32u, 48u, 64u}) {
    const Bytes session_hash = pattern(hash_len, static_cast<std::uint8_t>(hash_len));
    std::array<std::uint8_t, dtls::kMasterSecretSize> got{};
    ASSERT_TRUE(dtls::extended_master_secret(GetParam(), pms, session_hash, got));
    EXPECT_EQ(to_hex(got), to_hex(openssl_tls12_prf(GetParam(), pms, "extended master secret",
                                                    session_hash, dtls::kMasterSecretSize)))
        << hash_len;
  }
}

INSTANTIATE_TEST_SUITE_P(Prf, MasterSecret,
                         ::testing::Values(HashAlgorithm::kSha256, HashAlgorithm::kSha384),
                         [](const auto& p) {
                           return p.param == HashAlgorithm::kSha256 ? "SHA256" : "SHA384";
                         });

// RFC 4279 §2 / RFC 5489 §2 pre-master secrets, byte by byte. (The interop test derives
// OpenSSL's logged master secret from the PSK through this.)
TEST(DtlsPskPreMasterSecret, PlainPskAndEcdhePsk) {
  const Bytes psk = {0xAA, 0xBB, 0xCC};
  std::array<std::uint8_t, 64> out{};
  Result<std::size_t> n = dtls::psk_pre_master_secret(psk, {}, out);
  ASSERT_TRUE(n);
  EXPECT_EQ(Bytes(out.begin(), out.begin() + static_cast<long>(*n)),
            Bytes({0, 3, 0, 0, 0, 0, 3, 0xAA, 0xBB, 0xCC}));
  const Bytes ecdh = {1, 2, 3, 4, 5};
  n = dtls::psk_pre_master_secret(psk, ecdh, out);
  ASSERT_TRUE(n);
  EXPECT_EQ(Bytes(out.begin(), out.begin() + static_cast<long>(*n)),
            Bytes({0, 5, 1, 2, 3, 4, 5, 0, 3, 0xAA, 0xBB, 0xCC}));
  EXPECT_EQ(dtls::psk_pre_master_secret({}, {}, out).error(), Error::kInvalidArgument);
  std::array<std::uint8_t, 9> short_out{};
  EXPECT_EQ(dtls::psk_pre_master_secret(psk, {}, short_out).error(), Error::kBufferTooSmall);
}

}  // namespace
}  // namespace wireseal::test
