// The bit-sliced AES (crypto/backend/portable/aes_bitsliced.cc) tested directly, on every
// target, whatever the CPU: the native ARM backend serves AES-CTR with it only on NEON cores
// without the AES instructions, which the x86 host never is. FIPS-197's known answers, then
// OpenSSL EVP's AES-CTR on every size 0..2048 and a few large ones, random offsets, in place
// and out of place, across 64-bit and 128-bit counter wrap-around.
#include "crypto/backend/portable/aes_bitsliced.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/hex.h"
#include "support/random_below.h"

namespace wireseal::crypto::detail {
namespace {

using Buffer = std::vector<std::uint8_t>;
using ::wireseal::test::below;

constexpr std::uint64_t kSeed = 0xb175'11ce'2026ULL;

Buffer random_buffer(std::mt19937_64& rng, std::size_t n) {
  Buffer b(n);
  for (auto& x : b) {
    x = static_cast<std::uint8_t>(rng());
  }
  return b;
}

Buffer openssl_ctr(const Buffer& key, const std::uint8_t* counter_block, const Buffer& in) {
  const EVP_CIPHER* cipher = key.size() == 16   ? EVP_aes_128_ctr()
                             : key.size() == 24 ? EVP_aes_192_ctr()
                                                : EVP_aes_256_ctr();
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  EVP_EncryptInit_ex(ctx, cipher, nullptr, key.data(), counter_block);
  Buffer out(in.size());
  int len = 0;
  EVP_EncryptUpdate(ctx, out.data(), &len, in.data(), static_cast<int>(in.size()));
  EVP_CIPHER_CTX_free(ctx);
  return out;
}

// With the plaintext block as the counter block, CTR over zeros is the block cipher itself.
TEST(AesBitsliced, EncryptsFips197AppendixCVectors) {
  const Buffer plaintext = test::from_hex("00112233445566778899aabbccddeeff");
  const struct {
    std::size_t key_len;
    const char* ciphertext;
  } kCases[] = {
      {16, "69c4e0d86a7b0430d8cdb78070b4c55a"},  // C.1, AES-128
      {24, "dda97ca4864cdfe06eaf70a0ec0d7191"},  // C.2, AES-192
      {32, "8ea2b7ca516745bfeafc49904b496089"},  // C.3, AES-256
  };
  for (const auto& c : kCases) {
    Buffer key(c.key_len);
    for (std::size_t i = 0; i < key.size(); ++i) {
      key[i] = static_cast<std::uint8_t>(i);
    }
    auto aes = make_bitsliced_aes_ctr(key);
    Buffer block(16, 0);
    aes->ctr(plaintext.data(), block, block);
    EXPECT_EQ(test::to_hex(block), c.ciphertext) << "key length " << c.key_len;
  }
}

TEST(AesBitsliced, RejectsBadKeySizes) {
  for (std::size_t n : {0u, 15u, 17u, 31u, 33u}) {
    const Buffer key(n, 1);
    EXPECT_THROW(make_bitsliced_aes_ctr(key), std::invalid_argument) << n;
  }
}

class AesBitslicedCtr : public ::testing::TestWithParam<std::size_t> {};

TEST_P(AesBitslicedCtr, MatchesOpenSslOnEverySizeOffsetAndCounterCarry) {
  const std::size_t key_len = GetParam();
  std::mt19937_64 rng(kSeed + key_len);
  const Buffer key = random_buffer(rng, key_len);
  auto aes = make_bitsliced_aes_ctr(key);
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 2048; ++n) {
    sizes.push_back(n);
  }
  for (std::size_t n : {4095u, 8192u, 65536u, 100003u}) {
    sizes.push_back(n);
  }
  for (std::size_t n : sizes) {
    Buffer counter = random_buffer(rng, 16);
    if (n % 5 == 0) {
      // Low 64 bits just below wrap-around: the carry into the high half, inside a batch.
      std::memset(counter.data() + 8, 0xff, 8);
      counter[15] = static_cast<std::uint8_t>(0xff - below(rng, 8));
    } else if (n % 5 == 1) {
      // The whole 128-bit counter wraps to zero.
      std::memset(counter.data(), 0xff, 16);
      counter[15] = static_cast<std::uint8_t>(0xff - below(rng, 8));
    }
    const Buffer plaintext = random_buffer(rng, n);
    const Buffer expected = openssl_ctr(key, counter.data(), plaintext);
    const std::size_t in_offset = below(rng, 16);
    const std::size_t out_offset = below(rng, 16);
    SCOPED_TRACE("seed=" + std::to_string(kSeed) + " key=" + std::to_string(key_len) +
                 " size=" + std::to_string(n) + " offsets=" + std::to_string(in_offset) + "," +
                 std::to_string(out_offset));

    Buffer src(n + 16);
    Buffer dst(n + 16);
    std::copy(plaintext.begin(), plaintext.end(),
              src.begin() + static_cast<std::ptrdiff_t>(in_offset));
    aes->ctr(counter.data(), Bytes(src.data() + in_offset, n),
             MutableBytes(dst.data() + out_offset, n));
    ASSERT_EQ(test::to_hex(Bytes(dst.data() + out_offset, n)), test::to_hex(expected));

    MutableBytes io(src.data() + in_offset, n);
    aes->ctr(counter.data(), io, io);
    ASSERT_EQ(test::to_hex(io), test::to_hex(expected)) << "in place";
  }
}

INSTANTIATE_TEST_SUITE_P(KeySizes, AesBitslicedCtr, ::testing::Values(16u, 24u, 32u));

}  // namespace
}  // namespace wireseal::crypto::detail
