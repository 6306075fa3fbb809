// Constant time in the crypto core: tag comparison, every AEAD on every backend (seal, open
// of good and forged messages, batches), AES-CTR/CBC, CMAC, GMAC, HMAC (every hash, and the
// secret-length HMAC of MAC-then-encrypt records). Keys and plaintexts are secret.
#include <gtest/gtest.h>

#include <string>

#include "crypto/backend/portable/aes_bitsliced.h"
#include "ct_util.h"
#include "unit/crypto/crypto_test_util.h"
#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/crypto/mac.h"

namespace wireseal::test {
namespace {

using crypto::AeadAlgorithm;
using crypto::Backend;

// CtSelfTest proves the harness sees what it must: ctest runs it expecting valgrind to fail.
TEST(CtSelfTest, ABranchOnASecretIsReported) {
  Bytes key = pattern(16, 1);
  secret(key);
  volatile int sink = 0;
  if (key[3] == 0x42) {  // the deliberate leak
    sink = 1;
  }
  (void)sink;
}

TEST(CtTags, ComparisonsDoNotDependOnTheBytes) {
  for (std::size_t n : {1u, 4u, 10u, 16u, 20u, 32u, 48u, 64u}) {
    Bytes a = pattern(n, 3);
    Bytes b = a;
    Bytes c = a;
    c[n / 2] ^= 1;
    secret(a);
    secret(b);
    secret(c);
    EXPECT_TRUE(detail::tag_matches(a, b));
    EXPECT_FALSE(detail::tag_matches(a, c));
  }
}

std::vector<AeadAlgorithm> all_aeads() {
  return {AeadAlgorithm::kAes128Gcm,       AeadAlgorithm::kAes192Gcm, AeadAlgorithm::kAes256Gcm,
          AeadAlgorithm::kAes128Ccm,       AeadAlgorithm::kAes192Ccm, AeadAlgorithm::kAes256Ccm,
          AeadAlgorithm::kChaCha20Poly1305};
}

TEST(CtCrypto, AeadSealAndOpenOnEveryBackend) {
  for (AeadAlgorithm alg : all_aeads()) {
    for (Backend backend : expected_backends(crypto::primitive_of(alg))) {
      SCOPED_TRACE(std::string(crypto::to_string(alg)) + " " +
                   std::string(crypto::to_string(backend)));
      Bytes key = pattern(crypto::info(alg).key_len, 5);
      secret(key);
      crypto::Aead aead(alg, key,
                        crypto::AeadOptions{.tag_len = 16, .nonce_len = 12, .backend = backend});
      const Bytes nonce = pattern(12, 7);
      const Bytes aad = pattern(13, 9);
      for (std::size_t n : {0u, 1u, 16u, 63u, 200u, 1400u}) {
        Bytes plain = pattern(n, 11);
        secret(plain);
        Bytes sealed(n);
        Bytes tag(16);
        ASSERT_TRUE(aead.seal(nonce, aad, plain, sealed, tag));
        reveal(sealed);  // ciphertext and tag go on the wire
        reveal(tag);
        Bytes opened(n);
        EXPECT_TRUE(aead.open(nonce, aad, sealed, opened, tag));
        Bytes forged = tag;
        forged[5] ^= 0x10;
        EXPECT_FALSE(aead.open(nonce, aad, sealed, opened, forged));
        // The batch path, good and forged together.
        crypto::OpenJob jobs[2] = {{nonce, aad, sealed, opened, tag, {}},
                                   {nonce, aad, sealed, opened, forged, {}}};
        aead.open_batch(jobs);
        EXPECT_TRUE(jobs[0].status);
        EXPECT_FALSE(jobs[1].status);
      }
    }
  }
}

TEST(CtCrypto, AesModesCmacAndGmac) {
  for (Backend backend : kForcedBackends) {
    for (std::size_t key_len : {16u, 32u}) {
      Bytes key = pattern(key_len, 13);
      secret(key);
      const Bytes iv = pattern(16, 15);
      Bytes data = pattern(1024, 17);
      secret(data);
      Bytes out(1024);
      if (must_serve(crypto::Primitive::kAesCtr, backend)) {
        crypto::AesCtr ctr(key, backend);
        ASSERT_TRUE(ctr.apply(std::span<const std::uint8_t, 16>(iv.data(), 16), data, out));
      }
      if (must_serve(crypto::Primitive::kAesCbc, backend)) {
        crypto::AesCbc cbc(key, backend);
        ASSERT_TRUE(cbc.encrypt(std::span<const std::uint8_t, 16>(iv.data(), 16), data, out));
        ASSERT_TRUE(cbc.decrypt(std::span<const std::uint8_t, 16>(iv.data(), 16), out, data));
      }
      if (must_serve(crypto::Primitive::kAesCmac, backend)) {
        crypto::AesCmac cmac(key, backend);
        Bytes tag(16);
        ASSERT_TRUE(cmac.compute(data, tag));
        EXPECT_TRUE(cmac.verify(data, tag));
        tag[0] ^= 1;
        EXPECT_FALSE(cmac.verify(data, tag));
      }
      if (must_serve(crypto::Primitive::kAesGcm, backend)) {
        crypto::AesGmac gmac(key, backend);
        const Bytes nonce = pattern(12, 19);
        Bytes tag(16);
        ASSERT_TRUE(gmac.compute(std::span<const std::uint8_t, 12>(nonce.data(), 12), data, tag));
        EXPECT_TRUE(gmac.verify(std::span<const std::uint8_t, 12>(nonce.data(), 12), data, tag));
      }
    }
  }
}

// The bit-sliced AES is what ARM cores without AES instructions run for AES-CTR; it is
// portable C++, so the same source is checked here on x86, on every length class: under one
// batch, whole batches, a partial last block. Key, counter block and data are all secret.
TEST(CtCrypto, BitslicedAesCtrOnEveryKeySize) {
  for (std::size_t key_len : {16u, 24u, 32u}) {
    Bytes key = pattern(key_len, 23);
    secret(key);
    auto aes = crypto::detail::make_bitsliced_aes_ctr(key);
    Bytes counter = pattern(16, 29);
    secret(counter);
    for (std::size_t n : {1u, 16u, 100u, 128u, 129u, 1200u}) {
      Bytes data = pattern(n, 31);
      secret(data);
      Bytes out(n);
      aes->ctr(counter.data(), data, out);
      aes->ctr(counter.data(), out, out);  // in place
      reveal(out);
      reveal(data);
      EXPECT_EQ(out, data);
    }
  }
}

TEST(CtCrypto, HmacEveryHashAndTheSecretLengthForm) {
  for (crypto::HashAlgorithm h : {crypto::HashAlgorithm::kSha1, crypto::HashAlgorithm::kSha224,
                                  crypto::HashAlgorithm::kSha256, crypto::HashAlgorithm::kSha384,
                                  crypto::HashAlgorithm::kSha512}) {
    Bytes key = pattern(32, 21);
    secret(key);
    const crypto::Hmac hmac(h, key);
    Bytes msg = pattern(700, 23);
    secret(msg);
    Bytes tag(hmac.digest_len());
    ASSERT_TRUE(hmac.compute(msg, tag));
    EXPECT_TRUE(hmac.verify(msg, tag));
    crypto::HmacJob jobs[3] = {
        {{msg, {}, {}}, tag, {}}, {{msg, msg, {}}, tag, {}}, {{{}, {}, msg}, tag, {}}};
    hmac.compute_batch(jobs);
    // The secret-length form: every secret length in the window runs identically.
    const Bytes header = pattern(13, 25);
    for (std::size_t n = 400; n <= 700; n += 37) {
      std::size_t secret_len = n;
      WS_CT_SECRET(&secret_len, sizeof(secret_len));
      hmac.compute_secret_length(header, msg, secret_len, 400, tag);
    }
  }
}

}  // namespace
}  // namespace wireseal::test
