// The native ChaCha20-Poly1305 kernel (x86 AVX-512) on its own, white box: the native AEAD
// object hands records over 512 bytes to ipsec-mb where the build has it, so the Aead-level
// differential tests would not reach our keystream and Poly1305 past that size. Here the
// kernel runs every size 0..2048 and long ones against OpenSSL's EVP ChaCha20-Poly1305, at
// random offsets, in place and out of place, and must reject every tampered byte's record.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <memory>
#include <random>
#include <vector>

#include "common/cpu_features.h"
#include "support/hex.h"
#include "support/random_below.h"
#if defined(__x86_64__)
#include "crypto/backend/x86/aesni_objects.h"
#endif

namespace wireseal::crypto::detail {
namespace {

#if defined(__x86_64__)

using ::wireseal::test::below;
using ByteVec = std::vector<std::uint8_t>;

using ::wireseal::test::random_bytes;

// openssl_seal returns ciphertext || tag from OpenSSL's EVP ChaCha20-Poly1305.
ByteVec openssl_seal(const ByteVec& key, const ByteVec& nonce, const ByteVec& aad,
                     const ByteVec& pt) {
  std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(),
                                                                      EVP_CIPHER_CTX_free);
  ByteVec out(pt.size() + 16);
  int len = 0;
  EXPECT_EQ(
      EVP_EncryptInit_ex(ctx.get(), EVP_chacha20_poly1305(), nullptr, key.data(), nonce.data()), 1);
  EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), nullptr, &len, aad.data(), static_cast<int>(aad.size())),
            1);
  EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &len, pt.data(), static_cast<int>(pt.size())),
            1);
  EXPECT_EQ(EVP_EncryptFinal_ex(ctx.get(), out.data() + len, &len), 1);
  EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, out.data() + pt.size()), 1);
  return out;
}

std::vector<std::size_t> sizes() {
  std::vector<std::size_t> s;
  for (std::size_t n = 0; n <= 2048; ++n) {
    s.push_back(n);
  }
  for (std::size_t n : {std::size_t{4095}, std::size_t{4096}, std::size_t{8191}, std::size_t{8192},
                        std::size_t{65536 + 7}}) {
    s.push_back(n);
  }
  return s;
}

TEST(NativeChaCha20Poly1305, OwnKernelMatchesOpenSslAtEverySize) {
  if (!cpu::features().avx512f) {
    GTEST_SKIP() << "no AVX-512F: the native ChaCha20-Poly1305 kernel does not run here";
  }
  std::mt19937_64 rng(0xc4ac'2026'1205ULL);
  for (std::size_t n : sizes()) {
    const ByteVec key = random_bytes(rng, 32);
    const ByteVec nonce = random_bytes(rng, 12);
    const ByteVec aad = random_bytes(rng, below(rng, 3) == 0 ? 0 : below(rng, 40));
    const ByteVec pt = random_bytes(rng, n);
    const auto aead = make_native_chacha20_poly1305(key, /*own_kernel_only=*/true);
    const ByteVec expected = openssl_seal(key, nonce, aad, pt);
    SCOPED_TRACE("size " + std::to_string(n));

    // Seal out of place at a random offset.
    const std::size_t offset = below(rng, 64);
    ByteVec buf(offset + n + 1);
    ByteVec tag(16);
    aead->seal(nonce, aad, pt, std::span(buf).subspan(offset, n), tag);
    ASSERT_EQ(test::to_hex({buf.data() + offset, n}), test::to_hex({expected.data(), n}));
    ASSERT_EQ(test::to_hex(tag), test::to_hex({expected.data() + n, 16}));

    // Seal in place.
    ByteVec inplace(pt);
    ByteVec tag2(16);
    aead->seal(nonce, aad, inplace, inplace, tag2);
    ASSERT_EQ(inplace,
              ByteVec(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(n)));
    ASSERT_EQ(tag2, tag);

    // Open in place, then a tampered copy must fail.
    ASSERT_TRUE(aead->open(nonce, aad, inplace, inplace, tag));
    ASSERT_EQ(inplace, pt);
    ByteVec forged(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(n));
    ByteVec forged_tag(tag);
    if (n != 0) {
      forged[below(rng, n)] ^= static_cast<std::uint8_t>(1U << below(rng, 8));
    } else {
      forged_tag[below(rng, 16)] ^= 1;
    }
    ByteVec scratch(n);
    ASSERT_FALSE(aead->open(nonce, aad, forged, scratch, forged_tag));
  }
}

#else

TEST(NativeChaCha20Poly1305, OwnKernelMatchesOpenSslAtEverySize) {
  GTEST_SKIP() << "the native ChaCha20-Poly1305 kernel is x86-64 only";
}

#endif

}  // namespace
}  // namespace wireseal::crypto::detail
