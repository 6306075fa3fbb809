// crypto::mac_then_encrypt and crypto::encrypt_then_mac (cbc_hmac.h) against OpenSSL's EVP
// AES-CBC and HMAC() computed here, and the stitched AES-CBC + SHA kernel beneath them, white box,
// against a serial reference (OpenSSL's block transforms and EVP AES-CBC). Every record size
// 0..2048 and long ones, header lengths that put the first run of whole hash blocks at every
// kind of place, random buffer offsets, every key size, SHA-1, SHA-256 and SHA-384 (which has no
// stitched kernel), every pair of backends. Runs in every CPU variant (no SHA-NI: the two chains
// in turn).
#ifndef OPENSSL_SUPPRESS_DEPRECATED
#define OPENSSL_SUPPRESS_DEPRECATED 1  // SHA1_Transform / SHA256_Transform for the reference
#endif
#include "wireseal/crypto/cbc_hmac.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/cpu_features.h"
#include "crypto/backend/native.h"
#include "crypto_test_util.h"
#include "support/hex.h"
#include "support/random_below.h"

namespace wireseal::crypto {
namespace {

using ::wireseal::test::below;
using ::wireseal::test::random_bytes;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t kSeed = 0xcbc'4ac'2026'1206ULL;

const EVP_MD* evp_md(HashAlgorithm hash) {
  switch (hash) {
    case HashAlgorithm::kSha1:
      return EVP_sha1();
    case HashAlgorithm::kSha384:
      return EVP_sha384();
    default:
      return EVP_sha256();
  }
}

// openssl_cbc encrypts `data` (whole blocks) with AES-CBC from `iv`, without padding.
Bytes openssl_cbc(const Bytes& key, const std::uint8_t* iv, const Bytes& data) {
  const EVP_CIPHER* cipher = key.size() == 16   ? EVP_aes_128_cbc()
                             : key.size() == 24 ? EVP_aes_192_cbc()
                                                : EVP_aes_256_cbc();
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  EVP_EncryptInit_ex(ctx, cipher, nullptr, key.data(), iv);
  EVP_CIPHER_CTX_set_padding(ctx, 0);
  Bytes out(data.size() + 16);
  int len = 0;
  EVP_EncryptUpdate(ctx, out.data(), &len, data.data(), static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(len));
  EVP_CIPHER_CTX_free(ctx);
  return out;
}

Bytes openssl_hmac(HashAlgorithm hash, const Bytes& key, const Bytes& a, const Bytes& b) {
  Bytes msg = a;
  msg.insert(msg.end(), b.begin(), b.end());
  std::uint8_t out[64];
  unsigned int len = 0;
  HMAC(evp_md(hash), key.data(), static_cast<int>(key.size()), msg.data(), msg.size(), out, &len);
  return Bytes(out, out + len);
}

struct Keys {
  Bytes enc;
  Bytes mac;
};

// tls_padding appends the TLS CBC padding that brings `len` bytes to whole blocks.
Bytes tls_padding(std::size_t len) {
  const std::size_t pad = 16 - len % 16;
  return Bytes(pad, static_cast<std::uint8_t>(pad - 1));
}

// expected_mte is the MAC-then-encrypt body: CBC(plaintext || HMAC(header || plaintext) ||
// padding).
Bytes expected_mte(HashAlgorithm hash, const Keys& k, const Bytes& iv, const Bytes& header,
                   const Bytes& pt) {
  Bytes body = pt;
  const Bytes mac = openssl_hmac(hash, k.mac, header, pt);
  body.insert(body.end(), mac.begin(), mac.end());
  const Bytes pad = tls_padding(body.size());
  body.insert(body.end(), pad.begin(), pad.end());
  return openssl_cbc(k.enc, iv.data(), body);
}

// check_mte seals `pt` with mac_then_encrypt at a random offset and compares with OpenSSL.
void check_mte(std::mt19937_64& rng, const Hmac& hmac, AesCbc& cbc, const Keys& k,
               const Bytes& header, std::size_t n) {
  const Bytes pt = random_bytes(rng, n);
  const Bytes iv = random_bytes(rng, 16);
  const std::size_t mac_len = hmac.digest_len();
  const Bytes pad = tls_padding(n + mac_len);
  const std::size_t len = n + mac_len + pad.size();
  const std::size_t offset = below(rng, 16);
  Bytes buf(offset + len + 16, 0xee);
  std::copy(pt.begin(), pt.end(), buf.begin() + static_cast<std::ptrdiff_t>(offset));
  std::copy(pad.begin(), pad.end(),
            buf.begin() + static_cast<std::ptrdiff_t>(offset + n + mac_len));
  const std::span<std::uint8_t> body(buf.data() + offset, len);
  SCOPED_TRACE("mac-then-encrypt " + std::string(to_string(hmac.hash())) + " key " +
               std::to_string(k.enc.size()) + " header " + std::to_string(header.size()) +
               " size " + std::to_string(n) + " offset " + std::to_string(offset) + " hmac " +
               std::string(to_string(hmac.backend())) + " cbc " +
               std::string(to_string(cbc.backend())));
  ASSERT_TRUE(mac_then_encrypt(hmac, cbc, std::span<const std::uint8_t, 16>(iv.data(), 16), header,
                               body, n));
  ASSERT_EQ(test::to_hex(body), test::to_hex(expected_mte(hmac.hash(), k, iv, header, pt)));
  EXPECT_EQ(buf[offset + len], 0xee);  // nothing written past the body
}

// check_etm seals `len` bytes (whole blocks) with encrypt_then_mac and compares with OpenSSL.
void check_etm(std::mt19937_64& rng, const Hmac& hmac, AesCbc& cbc, const Keys& k,
               const Bytes& header, std::size_t len, std::size_t mac_len) {
  const Bytes iv = random_bytes(rng, 16);
  const Bytes padded = random_bytes(rng, len);
  const std::size_t offset = below(rng, 16);
  Bytes buf(offset + 16 + len + mac_len + 16, 0xee);
  std::copy(iv.begin(), iv.end(), buf.begin() + static_cast<std::ptrdiff_t>(offset));
  std::copy(padded.begin(), padded.end(), buf.begin() + static_cast<std::ptrdiff_t>(offset + 16));
  const std::span<std::uint8_t> iv_and_body(buf.data() + offset, 16 + len);
  const std::span<std::uint8_t> mac(buf.data() + offset + 16 + len, mac_len);
  SCOPED_TRACE("encrypt-then-mac " + std::string(to_string(hmac.hash())) + " key " +
               std::to_string(k.enc.size()) + " header " + std::to_string(header.size()) +
               " size " + std::to_string(len) + " offset " + std::to_string(offset) + " hmac " +
               std::string(to_string(hmac.backend())) + " cbc " +
               std::string(to_string(cbc.backend())));
  ASSERT_TRUE(encrypt_then_mac(cbc, hmac, header, iv_and_body, mac));
  Bytes expected = iv;
  const Bytes ct = openssl_cbc(k.enc, iv.data(), padded);
  expected.insert(expected.end(), ct.begin(), ct.end());
  const Bytes full_mac = openssl_hmac(hmac.hash(), k.mac, header, expected);
  expected.insert(expected.end(), full_mac.begin(),
                  full_mac.begin() + static_cast<std::ptrdiff_t>(mac_len));
  ASSERT_EQ(test::to_hex({buf.data() + offset, 16 + len + mac_len}), test::to_hex(expected));
  EXPECT_EQ(buf[offset + 16 + len + mac_len], 0xee);
}

Keys make_keys(std::mt19937_64& rng, std::size_t enc_len, HashAlgorithm hash) {
  return {random_bytes(rng, enc_len), random_bytes(rng, digest_length(hash))};
}

constexpr HashAlgorithm kHashes[] = {HashAlgorithm::kSha1, HashAlgorithm::kSha256,
                                     HashAlgorithm::kSha384};

TEST(CbcHmac, MacThenEncryptMatchesOpenSslAtEverySize) {
  std::mt19937_64 rng(kSeed);
  for (HashAlgorithm hash : kHashes) {
    for (std::size_t key_len : {16u, 24u, 32u}) {
      const Keys k = make_keys(rng, key_len, hash);
      const Hmac hmac(hash, k.mac);
      AesCbc cbc(k.enc);
      // Every size for the suites DTLS has; every fifth for the others.
      const bool every = (key_len == 16 && hash != HashAlgorithm::kSha384) || key_len == 32;
      for (std::size_t n = 0; n <= 2048; n += every ? 1 : 5) {
        check_mte(rng, hmac, cbc, k, random_bytes(rng, 13), n);
      }
      for (std::size_t n : {4095u, 8192u, 16384u, 16371u}) {
        check_mte(rng, hmac, cbc, k, random_bytes(rng, 13), n);
      }
    }
  }
}

TEST(CbcHmac, EncryptThenMacMatchesOpenSslAtEverySize) {
  std::mt19937_64 rng(kSeed + 1);
  for (HashAlgorithm hash : kHashes) {
    for (std::size_t key_len : {16u, 24u, 32u}) {
      const Keys k = make_keys(rng, key_len, hash);
      const Hmac hmac(hash, k.mac);
      AesCbc cbc(k.enc);
      for (std::size_t len = 0; len <= 2048 + 16; len += 16) {
        check_etm(rng, hmac, cbc, k, random_bytes(rng, 13), len, hmac.digest_len());
      }
      for (std::size_t len : {4096u, 8192u, 16400u}) {
        check_etm(rng, hmac, cbc, k, random_bytes(rng, 13), len, hmac.digest_len());
      }
      check_etm(rng, hmac, cbc, k, random_bytes(rng, 13), 1024, 10);  // a truncated MAC
    }
  }
}

// Header lengths move the first whole hash block: inside the header (64, 70, 128), right at the
// body's start (0, 64), and every offset into it; the DTLS pseudo-headers are 13 and 14+CID.
TEST(CbcHmac, EveryHeaderLengthMatchesOpenSsl) {
  std::mt19937_64 rng(kSeed + 2);
  for (HashAlgorithm hash : {HashAlgorithm::kSha1, HashAlgorithm::kSha256}) {
    const Keys k = make_keys(rng, 16, hash);
    const Hmac hmac(hash, k.mac);
    AesCbc cbc(k.enc);
    for (std::size_t h = 0; h <= 130; ++h) {
      for (std::size_t n : {0u, 31u, 50u, 51u, 64u, 100u, 300u, 1400u}) {
        check_mte(rng, hmac, cbc, k, random_bytes(rng, h), n);
        check_etm(rng, hmac, cbc, k, random_bytes(rng, h), (n + 15) / 16 * 16, hmac.digest_len());
      }
    }
  }
}

// Every pair of backends that must be available: the stitched kernel runs only when both the
// HMAC and the AES object are native; every other pair runs the two chains in turn.
TEST(CbcHmac, EveryBackendPairMatchesOpenSsl) {
  std::mt19937_64 rng(kSeed + 3);
  int pairs = 0;
  for (HashAlgorithm hash : {HashAlgorithm::kSha1, HashAlgorithm::kSha256}) {
    for (Backend mac_backend : test::expected_backends(hmac_primitive(hash))) {
      for (Backend cbc_backend : test::expected_backends(Primitive::kAesCbc)) {
        ++pairs;
        const Keys k = make_keys(rng, 32, hash);
        const Hmac hmac(hash, k.mac, mac_backend);
        AesCbc cbc(k.enc, cbc_backend);
        for (std::size_t n = 0; n <= 1500; n += 1 + n / 16) {
          check_mte(rng, hmac, cbc, k, random_bytes(rng, 13), n);
          check_etm(rng, hmac, cbc, k, random_bytes(rng, 13), (n + 15) / 16 * 16,
                    hmac.digest_len());
        }
      }
    }
  }
  EXPECT_GE(pairs, 2);
}

TEST(CbcHmac, RefusesBodiesThatAreNotWholeBlocksOrHaveNoRoomForTheMac) {
  const Bytes key(16, 1);
  const Hmac hmac(HashAlgorithm::kSha256, key);
  AesCbc cbc(key);
  const std::uint8_t iv[16] = {};
  Bytes body(64);
  EXPECT_EQ(mac_then_encrypt(hmac, cbc, iv, {}, {body.data(), 63}, 0).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(mac_then_encrypt(hmac, cbc, iv, {}, body, 33).error(), Error::kInvalidArgument);
  EXPECT_EQ(mac_then_encrypt(hmac, cbc, iv, {}, body, 65).error(), Error::kInvalidArgument);
  EXPECT_TRUE(mac_then_encrypt(hmac, cbc, iv, {}, body, 32));
  std::uint8_t mac[33];
  EXPECT_EQ(encrypt_then_mac(cbc, hmac, {}, {body.data(), 8}, {mac, 32}).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(encrypt_then_mac(cbc, hmac, {}, {body.data(), 40}, {mac, 32}).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(encrypt_then_mac(cbc, hmac, {}, body, {mac, 33}).error(), Error::kInvalidArgument);
  EXPECT_EQ(encrypt_then_mac(cbc, hmac, {}, body, {mac, 0}).error(), Error::kInvalidArgument);
  EXPECT_TRUE(encrypt_then_mac(cbc, hmac, {}, body, {mac, 32}));
}

// --- The stitched kernel itself, through the native AES object (white box) ---

// serial_compress runs blocks through OpenSSL's block transform from the chaining value `state`.
void serial_compress(HashAlgorithm hash, std::uint32_t* state, const std::uint8_t* blocks,
                     std::size_t count) {
  if (hash == HashAlgorithm::kSha1) {
    SHA_CTX c;
    SHA1_Init(&c);
    c.h0 = state[0];
    c.h1 = state[1];
    c.h2 = state[2];
    c.h3 = state[3];
    c.h4 = state[4];
    for (std::size_t i = 0; i < count; ++i) {
      SHA1_Transform(&c, blocks + 64 * i);
    }
    state[0] = c.h0;
    state[1] = c.h1;
    state[2] = c.h2;
    state[3] = c.h3;
    state[4] = c.h4;
    return;
  }
  SHA256_CTX c;
  SHA256_Init(&c);
  std::copy(state, state + 8, c.h);
  for (std::size_t i = 0; i < count; ++i) {
    SHA256_Transform(&c, blocks + 64 * i);
  }
  std::copy(c.h, c.h + 8, state);
}

// The three layouts callers use: apart (hash and cipher on different bytes), the hash ahead of
// an in-place encryption (MAC-then-encrypt: the hashed block overlaps the step's ciphertext)
// and behind it (encrypt-then-MAC: hashing ciphertext of earlier steps).
enum class Layout { kApart, kHashAhead, kHashBehind };

TEST(CbcHmac, StitchedKernelEqualsTheTwoChainsInTurn) {
  const bool stitches = detail::native_supports(Primitive::kAesCbc) &&
#if defined(__x86_64__)
                        cpu::features().sha_ni;
#else
                        false;
#endif
  std::mt19937_64 rng(kSeed + 4);
  int ran = 0;
  for (std::size_t key_len : {16u, 24u, 32u}) {
    if (!detail::native_supports(Primitive::kAesCbc)) {
      GTEST_SKIP() << "no native AES-CBC on this CPU: nothing to stitch";
    }
    const Bytes key = random_bytes(rng, key_len);
    const auto aes = detail::make_native_aes_mode(detail::AesMode::kCbc, key);
    for (HashAlgorithm hash : kHashes) {
      for (Layout layout : {Layout::kApart, Layout::kHashAhead, Layout::kHashBehind}) {
        for (std::size_t steps : {0u, 1u, 2u, 3u, 7u, 22u, 130u}) {
          SCOPED_TRACE("key " + std::to_string(key_len) + " " + std::string(to_string(hash)) +
                       " layout " + std::to_string(static_cast<int>(layout)) + " steps " +
                       std::to_string(steps));
          const std::size_t offset = below(rng, 16);
          Bytes buf = random_bytes(rng, offset + 128 * steps + 256);
          std::uint8_t* base = buf.data() + offset;
          const Bytes iv = random_bytes(rng, 16);
          std::uint32_t init[8];
          for (std::uint32_t& w : init) {
            w = static_cast<std::uint32_t>(rng());
          }
          // Where the cipher and the hash work in each layout.
          std::uint8_t* cipher_at = layout == Layout::kHashBehind ? base + 128 : base;
          const std::uint8_t* hash_at = layout == Layout::kApart       ? base + 64 * steps + 16
                                        : layout == Layout::kHashAhead ? base + 51
                                                                       : base + 35;
          // The serial reference on a copy: encrypt, or hash, first as the layout dictates.
          Bytes ref = buf;
          std::uint8_t* ref_base = ref.data() + offset;
          const std::size_t cipher_off = static_cast<std::size_t>(cipher_at - base);
          const std::size_t hash_off = static_cast<std::size_t>(hash_at - base);
          std::uint32_t expected_state[8];
          std::copy(init, init + 8, expected_state);
          const Bytes plain(ref_base + cipher_off, ref_base + cipher_off + 64 * steps);
          if (layout != Layout::kHashBehind) {
            serial_compress(hash, expected_state, ref_base + hash_off, steps);
          }
          const Bytes ct = openssl_cbc(key, iv.data(), plain);
          std::copy(ct.begin(), ct.end(), ref_base + cipher_off);
          if (layout == Layout::kHashBehind) {
            serial_compress(hash, expected_state, ref_base + hash_off, steps);
          }

          std::uint8_t chain[16];
          std::copy(iv.begin(), iv.end(), chain);
          std::uint32_t state[8];
          std::copy(init, init + 8, state);
          const bool ran_kernel =
              aes->cbc_encrypt_hashing(chain, cipher_at, cipher_at, steps, hash, state, hash_at);
          ASSERT_EQ(ran_kernel, stitches && hash != HashAlgorithm::kSha384);
          if (!ran_kernel) {
            continue;
          }
          ++ran;
          ASSERT_EQ(test::to_hex(buf), test::to_hex(ref));
          const std::size_t words = hash == HashAlgorithm::kSha1 ? 5 : 8;
          for (std::size_t w = 0; w < words; ++w) {
            ASSERT_EQ(state[w], expected_state[w]) << "word " << w;
          }
          const Bytes last = steps == 0 ? iv : Bytes(ct.end() - 16, ct.end());
          ASSERT_EQ(test::to_hex({chain, 16}), test::to_hex(last));
        }
      }
    }
  }
  RecordProperty("stitched_runs", ran);
  if (stitches) {
    EXPECT_GT(ran, 0);
  }
}

}  // namespace
}  // namespace wireseal::crypto
