// Differential tests: every backend of every primitive against OpenSSL EVP computed here,
// independently of the library's own OpenSSL backend, on seeded random inputs: every size
// 0..2048 plus a few large ones, random buffer offsets, in place and out of place.
// On failure the trace names the seed, size and offsets so the case can be replayed.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "crypto_test_util.h"
#include "support/hex.h"
#include "support/random_below.h"
#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/crypto/mac.h"

namespace wireseal::crypto {
namespace {

using ::wireseal::test::below;

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t kSeed = 0x5ea1'2026'1130ULL;
using test::expected_backends;

std::vector<std::size_t> test_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 2048; ++n) {
    sizes.push_back(n);
  }
  for (std::size_t n : {4095u, 8192u, 65536u, 100003u}) {
    sizes.push_back(n);
  }
  return sizes;
}

using ::wireseal::test::random_bytes;

// split_job is an HMAC batch job over `m` cut at two random points into its three parts.
HmacJob split_job(std::mt19937_64& rng, const Bytes& m, std::span<std::uint8_t> out) {
  const std::size_t a = below(rng, m.size() + 1);
  const std::size_t b = a + below(rng, m.size() - a + 1);
  HmacJob job{};
  job.parts[0] = {m.data(), a};
  job.parts[1] = {m.data() + a, b - a};
  job.parts[2] = {m.data() + b, m.size() - b};
  job.out = out;
  return job;
}

// --- Independent OpenSSL reference (fresh context per call: slow but obviously right) ---

const EVP_CIPHER* evp_aead(AeadAlgorithm a) {
  switch (a) {
    case AeadAlgorithm::kAes128Gcm:
      return EVP_aes_128_gcm();
    case AeadAlgorithm::kAes192Gcm:
      return EVP_aes_192_gcm();
    case AeadAlgorithm::kAes256Gcm:
      return EVP_aes_256_gcm();
    case AeadAlgorithm::kAes128Ccm:
      return EVP_aes_128_ccm();
    case AeadAlgorithm::kAes192Ccm:
      return EVP_aes_192_ccm();
    case AeadAlgorithm::kAes256Ccm:
      return EVP_aes_256_ccm();
    case AeadAlgorithm::kChaCha20Poly1305:
      return EVP_chacha20_poly1305();
  }
  return nullptr;
}

bool is_ccm(AeadAlgorithm a) {
  return a == AeadAlgorithm::kAes128Ccm || a == AeadAlgorithm::kAes192Ccm ||
         a == AeadAlgorithm::kAes256Ccm;
}

// reference_seal returns ciphertext || tag.
Bytes reference_seal(AeadAlgorithm a, const Bytes& key, const Bytes& nonce, const Bytes& aad,
                     const Bytes& pt, std::size_t tag_len) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  Bytes out(pt.size() + tag_len);
  int len = 0;
  EVP_EncryptInit_ex(ctx, evp_aead(a), nullptr, nullptr, nullptr);
  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(nonce.size()), nullptr);
  if (is_ccm(a)) {
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag_len), nullptr);
  }
  EVP_EncryptInit_ex(ctx, nullptr, nullptr, key.data(), nonce.data());
  if (is_ccm(a)) {
    EVP_EncryptUpdate(ctx, nullptr, &len, nullptr, static_cast<int>(pt.size()));
  }
  if (!aad.empty()) {
    EVP_EncryptUpdate(ctx, nullptr, &len, aad.data(), static_cast<int>(aad.size()));
  }
  std::uint8_t dummy[1];
  EVP_EncryptUpdate(ctx, pt.empty() ? dummy : out.data(), &len, pt.empty() ? dummy : pt.data(),
                    static_cast<int>(pt.size()));
  EVP_EncryptFinal_ex(ctx, dummy, &len);
  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(tag_len),
                      out.data() + pt.size());
  EVP_CIPHER_CTX_free(ctx);
  return out;
}

struct AeadCase {
  AeadAlgorithm algorithm;
  std::size_t nonce_len;
  std::size_t tag_len;
};

class AeadDifferential : public ::testing::TestWithParam<AeadCase> {};

TEST_P(AeadDifferential, EveryBackendMatchesOpenSslOnRandomInputs) {
  const AeadCase c = GetParam();
  int backends_run = 0;
  for (Backend backend : expected_backends(primitive_of(c.algorithm))) {
    ++backends_run;
    std::mt19937_64 rng(kSeed ^ static_cast<std::uint64_t>(c.algorithm));
    const Bytes key = random_bytes(rng, info(c.algorithm).key_len);
    Aead aead(c.algorithm, key,
              {.tag_len = c.tag_len, .nonce_len = c.nonce_len, .backend = backend});
    ASSERT_EQ(aead.backend(), backend);
    for (std::size_t n : test_sizes()) {
      if (is_ccm(c.algorithm) && c.nonce_len == 13 && n > 0xffff) {
        // A 13-byte CCM nonce leaves 2 length bytes; longer messages are refused (tested below).
        std::uint8_t tag[16];
        const Bytes big(n);
        Bytes out(n);
        EXPECT_EQ(aead.seal(Bytes(13), {}, big, out, tag).error(), Error::kInvalidArgument);
        continue;
      }
      const Bytes nonce = random_bytes(rng, c.nonce_len);
      const Bytes aad = random_bytes(rng, below(rng, 3) == 0 ? 0 : below(rng, 70));
      const Bytes pt = random_bytes(rng, n);
      const std::size_t offset = below(rng, 16);
      const bool in_place = (rng() & 1) != 0;
      SCOPED_TRACE("seed=" + std::to_string(kSeed) + " backend=" + std::string(to_string(backend)) +
                   " size=" + std::to_string(n) + " offset=" + std::to_string(offset) +
                   (in_place ? " in-place" : " out-of-place"));
      const Bytes expected = reference_seal(c.algorithm, key, nonce, aad, pt, c.tag_len);

      Bytes buf(n + 16 + 32, 0xee);
      std::copy(pt.begin(), pt.end(), buf.begin() + static_cast<std::ptrdiff_t>(offset));
      Bytes out_buf(n + 32, 0xdd);
      std::span<const std::uint8_t> in(buf.data() + offset, n);
      std::span<std::uint8_t> out = in_place ? std::span<std::uint8_t>(buf.data() + offset, n)
                                             : std::span<std::uint8_t>(out_buf.data() + 1, n);
      std::uint8_t tag[16];
      ASSERT_TRUE(aead.seal(nonce, aad, in, out, std::span<std::uint8_t>(tag, c.tag_len)));
      ASSERT_EQ(test::to_hex(out), test::to_hex({expected.data(), n}));
      ASSERT_EQ(test::to_hex({tag, c.tag_len}), test::to_hex({expected.data() + n, c.tag_len}));

      // Open back (in place over the ciphertext) and compare with the plaintext.
      Bytes ct(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(n));
      ASSERT_TRUE(aead.open(nonce, aad, ct, ct, {expected.data() + n, c.tag_len}));
      ASSERT_EQ(ct, pt);
    }
  }
  EXPECT_GE(backends_run, 1);
  RecordProperty("backends_run", backends_run);
}

INSTANTIATE_TEST_SUITE_P(
    AllAeads, AeadDifferential,
    ::testing::Values(
        AeadCase{AeadAlgorithm::kAes128Gcm, 12, 16}, AeadCase{AeadAlgorithm::kAes192Gcm, 12, 16},
        AeadCase{AeadAlgorithm::kAes256Gcm, 12, 16}, AeadCase{AeadAlgorithm::kAes128Gcm, 12, 12},
        AeadCase{AeadAlgorithm::kAes128Ccm, 12, 16}, AeadCase{AeadAlgorithm::kAes128Ccm, 12, 8},
        AeadCase{AeadAlgorithm::kAes128Ccm, 11, 16}, AeadCase{AeadAlgorithm::kAes128Ccm, 7, 4},
        AeadCase{AeadAlgorithm::kAes128Ccm, 13, 8}, AeadCase{AeadAlgorithm::kAes192Ccm, 12, 16},
        AeadCase{AeadAlgorithm::kAes256Ccm, 12, 16}, AeadCase{AeadAlgorithm::kAes256Ccm, 11, 16},
        AeadCase{AeadAlgorithm::kChaCha20Poly1305, 12, 16}),
    [](const ::testing::TestParamInfo<AeadCase>& p) {
      std::string name = to_string(p.param.algorithm);
      name += "_n" + std::to_string(p.param.nonce_len) + "_t" + std::to_string(p.param.tag_len);
      for (char& ch : name) {
        if (ch == '-') {
          ch = '_';
        }
      }
      return name;
    });

// --- Unauthenticated AES modes ---

const EVP_CIPHER* evp_aes(const char* mode, std::size_t key_len) {
  const bool ctr = std::strcmp(mode, "ctr") == 0;
  switch (key_len) {
    case 16:
      return ctr ? EVP_aes_128_ctr() : EVP_aes_128_cbc();
    case 24:
      return ctr ? EVP_aes_192_ctr() : EVP_aes_192_cbc();
    default:
      return ctr ? EVP_aes_256_ctr() : EVP_aes_256_cbc();
  }
}

Bytes reference_cipher(const char* mode, bool encrypt, const Bytes& key, const std::uint8_t* iv,
                       const Bytes& in) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  EVP_CipherInit_ex(ctx, evp_aes(mode, key.size()), nullptr, key.data(), iv, encrypt ? 1 : 0);
  EVP_CIPHER_CTX_set_padding(ctx, 0);
  Bytes out(in.size() + 16);
  int len = 0;
  int fin = 0;
  EVP_CipherUpdate(ctx, out.data(), &len, in.data(), static_cast<int>(in.size()));
  EVP_CipherFinal_ex(ctx, out.data() + len, &fin);
  EVP_CIPHER_CTX_free(ctx);
  out.resize(static_cast<std::size_t>(len + fin));
  return out;
}

class AesModeDifferential : public ::testing::TestWithParam<std::size_t> {};

TEST_P(AesModeDifferential, CtrMatchesOpenSslIncludingCounterCarry) {
  const std::size_t key_len = GetParam();
  for (Backend backend : expected_backends(Primitive::kAesCtr)) {
    std::mt19937_64 rng(kSeed + key_len);
    const Bytes key = random_bytes(rng, key_len);
    AesCtr ctr(key, backend);
    for (std::size_t n : test_sizes()) {
      Bytes cb = random_bytes(rng, 16);
      if (n % 7 == 0) {
        // Put the low 64 bits just below wrap-around so the carry into the high half is tested.
        std::memset(cb.data() + 8, 0xff, 8);
        cb[15] = static_cast<std::uint8_t>(0xff - below(rng, 4));
      } else if (n % 7 == 3) {
        // Only the last 32-bit word just below wrap-around: its carry into the word above
        // (kernels that step the last word alone must carry it).
        std::memset(cb.data() + 12, 0xff, 4);
        cb[11] = static_cast<std::uint8_t>(cb[11] & 0x7f);
        cb[15] = static_cast<std::uint8_t>(0xff - below(rng, 4));
      }
      const Bytes pt = random_bytes(rng, n);
      const std::size_t offset = below(rng, 16);
      SCOPED_TRACE("seed=" + std::to_string(kSeed) + " backend=" + std::string(to_string(backend)) +
                   " size=" + std::to_string(n) + " offset=" + std::to_string(offset));
      Bytes buf(n + 16);
      std::copy(pt.begin(), pt.end(), buf.begin() + static_cast<std::ptrdiff_t>(offset));
      std::span<std::uint8_t> io(buf.data() + offset, n);
      ASSERT_TRUE(ctr.apply(std::span<const std::uint8_t, 16>(cb.data(), 16), io, io));
      ASSERT_EQ(test::to_hex(io), test::to_hex(reference_cipher("ctr", true, key, cb.data(), pt)));
    }
  }
}

TEST_P(AesModeDifferential, CbcMatchesOpenSslBothDirections) {
  const std::size_t key_len = GetParam();
  for (Backend backend : expected_backends(Primitive::kAesCbc)) {
    std::mt19937_64 rng(kSeed * 3 + key_len);
    const Bytes key = random_bytes(rng, key_len);
    AesCbc cbc(key, backend);
    for (std::size_t blocks = 0; blocks <= 130; ++blocks) {
      const std::size_t n = blocks * 16;
      const Bytes iv = random_bytes(rng, 16);
      const Bytes pt = random_bytes(rng, n);
      SCOPED_TRACE("seed=" + std::to_string(kSeed) + " backend=" + std::string(to_string(backend)) +
                   " size=" + std::to_string(n));
      const std::span<const std::uint8_t, 16> ivs(iv.data(), 16);
      Bytes ct(n);
      ASSERT_TRUE(cbc.encrypt(ivs, pt, ct));
      ASSERT_EQ(test::to_hex(ct), test::to_hex(reference_cipher("cbc", true, key, iv.data(), pt)));
      Bytes back = ct;  // decrypt in place
      ASSERT_TRUE(cbc.decrypt(ivs, back, back));
      ASSERT_EQ(back, pt);
      Bytes apart(n);  // and into another buffer
      ASSERT_TRUE(cbc.decrypt(ivs, ct, apart));
      ASSERT_EQ(apart, pt);
    }
    std::uint8_t odd[17] = {};
    const std::uint8_t iv[16] = {};
    EXPECT_EQ(cbc.encrypt(iv, odd, odd).error(), Error::kInvalidArgument);
  }
}

INSTANTIATE_TEST_SUITE_P(KeySizes, AesModeDifferential, ::testing::Values(16u, 24u, 32u));

// --- MACs ---

Bytes reference_cmac(const Bytes& key, const Bytes& msg) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "CMAC", nullptr);
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  const char* cipher = key.size() == 16   ? "AES-128-CBC"
                       : key.size() == 24 ? "AES-192-CBC"
                                          : "AES-256-CBC";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, const_cast<char*>(cipher), 0),
      OSSL_PARAM_construct_end()};
  EVP_MAC_init(ctx, key.data(), key.size(), params);
  EVP_MAC_update(ctx, msg.data(), msg.size());
  Bytes out(16);
  std::size_t len = 0;
  EVP_MAC_final(ctx, out.data(), &len, out.size());
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(mac);
  return out;
}

TEST(MacDifferential, CmacEveryBackendMatchesOpenSsl) {
  for (std::size_t key_len : {16u, 24u, 32u}) {
    for (Backend backend : expected_backends(Primitive::kAesCmac)) {
      std::mt19937_64 rng(kSeed + 7 * key_len);
      const Bytes key = random_bytes(rng, key_len);
      AesCmac cmac(key, backend);
      for (std::size_t n = 0; n <= 1100; ++n) {
        const Bytes msg = random_bytes(rng, n);
        SCOPED_TRACE("seed=" + std::to_string(kSeed) +
                     " backend=" + std::string(to_string(backend)) + " size=" + std::to_string(n));
        std::uint8_t mac[16];
        ASSERT_TRUE(cmac.compute(msg, mac));
        ASSERT_EQ(test::to_hex(mac), test::to_hex(reference_cmac(key, msg)));
      }
    }
  }
}

TEST(MacDifferential, GmacEveryBackendMatchesGcmWithEmptyPlaintext) {
  for (std::size_t key_len : {16u, 32u}) {
    for (Backend backend : expected_backends(Primitive::kAesGcm)) {
      std::mt19937_64 rng(kSeed + 11 * key_len);
      const Bytes key = random_bytes(rng, key_len);
      AesGmac gmac(key, backend);
      const AeadAlgorithm alg =
          key_len == 16 ? AeadAlgorithm::kAes128Gcm : AeadAlgorithm::kAes256Gcm;
      for (std::size_t n = 0; n <= 1100; n += 3) {
        const Bytes nonce = random_bytes(rng, 12);
        const Bytes msg = random_bytes(rng, n);
        std::uint8_t mac[16];
        ASSERT_TRUE(gmac.compute(std::span<const std::uint8_t, 12>(nonce.data(), 12), msg, mac));
        ASSERT_EQ(test::to_hex(mac), test::to_hex(reference_seal(alg, key, nonce, msg, {}, 16)));
      }
    }
  }
}

// HashCase pairs each HMAC hash with OpenSSL's digest for the reference computation.
struct HashCase {
  HashAlgorithm hash;
  const EVP_MD* md;
};

std::vector<HashCase> hash_cases() {
  return {{HashAlgorithm::kSha1, EVP_sha1()},
          {HashAlgorithm::kSha224, EVP_sha224()},
          {HashAlgorithm::kSha256, EVP_sha256()},
          {HashAlgorithm::kSha384, EVP_sha384()},
          {HashAlgorithm::kSha512, EVP_sha512()}};
}

TEST(MacDifferential, HmacEveryHashMatchesOpenSslHmac) {
  const std::vector<HashCase> hashes = hash_cases();
  std::mt19937_64 rng(kSeed + 13);
  for (const auto& h : hashes) {
    for (std::size_t key_len : {0u, 1u, 20u, 64u, 65u, 128u, 129u, 200u}) {
      const Bytes key = random_bytes(rng, key_len);
      const Hmac hmac(h.hash, key);
      for (std::size_t n = 0; n <= 600; n += 1 + n / 8) {
        const Bytes msg = random_bytes(rng, n);
        std::uint8_t expected[64];
        unsigned int len = 0;
        // OpenSSL's HMAC() treats a NULL key as "reuse"; give it a real pointer for empty keys.
        const std::uint8_t empty_key = 0;
        ASSERT_NE(HMAC(h.md, key.empty() ? &empty_key : key.data(), static_cast<int>(key.size()),
                       msg.data(), msg.size(), expected, &len),
                  nullptr);
        std::uint8_t got[64];
        ASSERT_TRUE(hmac.compute(msg, {got, len}));
        ASSERT_EQ(test::to_hex({got, len}), test::to_hex({expected, len}))
            << to_string(h.hash) << " key " << key_len << " msg " << n;
        // The same MAC fed in three pieces through a Stream.
        Hmac::Stream s = hmac.begin();
        s.update({msg.data(), n / 3});
        s.update({msg.data() + n / 3, n / 3});
        s.update({msg.data() + 2 * (n / 3), n - 2 * (n / 3)});
        ASSERT_TRUE(s.finish({got, len}));
        ASSERT_EQ(test::to_hex({got, len}), test::to_hex({expected, len}));
      }
    }
  }
}

TEST(MacDifferential, SecretLengthHmacMatchesOpenSslForEveryLength) {
  // compute_secret_length against OpenSSL's HMAC over header || data[0, n), for every n the
  // window [min_len, data.size()] allows, header sizes of the TLS, DTLS and RFC 9146 forms,
  // and data sizes around block and length-field boundaries.
  const std::vector<HashCase> hashes = hash_cases();
  std::mt19937_64 rng(kSeed + 17);
  for (const auto& h : hashes) {
    const Bytes key = random_bytes(rng, 32);
    const Hmac hmac(h.hash, key);
    const std::size_t digest = hmac.digest_len();
    for (std::size_t header_len : {0u, 13u, 23u, 150u, 278u}) {
      const Bytes header = random_bytes(rng, header_len);
      for (std::size_t data_len : {0u, 1u, 40u, 55u, 56u, 64u, 111u, 112u, 128u, 300u, 1000u}) {
        const Bytes data = random_bytes(rng, data_len);
        for (std::size_t min_len : {std::size_t{0}, data_len / 2, data_len}) {
          for (std::size_t n = min_len; n <= data_len; ++n) {
            Bytes msg = header;
            msg.insert(msg.end(), data.begin(), data.begin() + static_cast<long>(n));
            std::uint8_t expected[64];
            unsigned int len = 0;
            ASSERT_NE(HMAC(h.md, key.data(), static_cast<int>(key.size()), msg.data(), msg.size(),
                           expected, &len),
                      nullptr);
            std::uint8_t got[64];
            hmac.compute_secret_length(header, data, n, min_len, {got, digest});
            ASSERT_EQ(test::to_hex({got, digest}), test::to_hex({expected, len}))
                << to_string(h.hash) << " header " << header_len << " data " << data_len << " min "
                << min_len << " n " << n;
          }
        }
      }
    }
  }
}

// --- HMAC on every backend: kOpenSsl (OpenSSL's SHA functions) and kNative (the kernel table's
// SHA-1/SHA-256 compression, where the CPU has it) against OpenSSL's HMAC() on every size
// 0..300 and a few large ones, at random buffer offsets, with every entry point.

Bytes reference_hmac(const EVP_MD* md, const Bytes& key, const std::uint8_t* msg, std::size_t n) {
  std::uint8_t mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // OpenSSL's HMAC() treats a NULL key as "reuse"; give it a real pointer for empty keys.
  const std::uint8_t empty = 0;
  const std::uint8_t* k = key.empty() ? &empty : key.data();
  if (HMAC(md, k, static_cast<int>(key.size()), n == 0 ? &empty : msg, n, mac, &len) == nullptr) {
    ADD_FAILURE() << "OpenSSL HMAC() failed";
    return {};
  }
  return Bytes(mac, mac + len);
}

std::vector<std::size_t> hmac_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 300; ++n) {
    sizes.push_back(n);
  }
  for (std::size_t n : {511u, 512u, 1000u, 1400u, 4095u, 8192u, 65536u, 100003u}) {
    sizes.push_back(n);
  }
  return sizes;
}

TEST(HmacBackends, ExplicitBackendsResolveOrThrowAndAutoIsTheDefault) {
  static_assert(std::is_nothrow_constructible_v<Hmac, HashAlgorithm, std::span<const std::uint8_t>>,
                "the two-argument (kAuto) constructor stays noexcept");
  const Bytes key(20, 0x0b);
  for (const auto& h : hash_cases()) {
    const Primitive p = hmac_primitive(h.hash);
    const std::vector<Backend> expected = expected_backends(p);
    for (Backend b : test::kForcedBackends) {
      SCOPED_TRACE(std::string(to_string(h.hash)) + " " + std::string(to_string(b)));
      EXPECT_EQ(is_available(p, b), test::must_serve(p, b));
      if (is_available(p, b)) {
        EXPECT_EQ(Hmac(h.hash, key, b).backend(), b);
      } else {
        EXPECT_THROW(Hmac(h.hash, key, b), std::invalid_argument);
      }
    }
    const Backend chosen = resolve(p, Backend::kAuto);
    EXPECT_EQ(Hmac(h.hash, key).backend(), chosen);
    EXPECT_EQ(Hmac(h.hash, key, Backend::kAuto).backend(), chosen);
    // kAuto is what HMAC ran on before it had backends: the native kernels where they exist.
    EXPECT_EQ(chosen, test::must_serve(p, Backend::kNative) ? Backend::kNative : Backend::kOpenSsl);
    test::report(test::primitive_name(p), "auto -> " + std::string(to_string(chosen)) +
                                              ", forced: " + test::backend_names(expected));
  }
}

TEST(HmacBackends, EveryBackendMatchesOpenSslHmacOnEverySize) {
  const std::vector<std::size_t> sizes = hmac_sizes();
  for (const auto& h : hash_cases()) {
    for (Backend backend : expected_backends(hmac_primitive(h.hash))) {
      std::mt19937_64 rng(kSeed + 31 + static_cast<std::uint64_t>(h.hash));
      for (std::size_t key_len : {0u, 20u, 64u, 65u, 131u}) {
        const Bytes key = random_bytes(rng, key_len);
        const Hmac hmac(h.hash, key, backend);
        ASSERT_EQ(hmac.backend(), backend);
        const std::size_t digest = hmac.digest_len();
        for (std::size_t n : sizes) {
          const std::size_t offset = below(rng, 16);
          Bytes buffer = random_bytes(rng, n + offset);
          const std::span<const std::uint8_t> msg(buffer.data() + offset, n);
          SCOPED_TRACE(std::string(to_string(h.hash)) + " backend=" +
                       std::string(to_string(backend)) + " key=" + std::to_string(key_len) +
                       " size=" + std::to_string(n) + " offset=" + std::to_string(offset));
          const Bytes expected = reference_hmac(h.md, key, msg.data(), n);
          ASSERT_EQ(expected.size(), digest);
          Bytes got(digest);
          ASSERT_TRUE(hmac.compute(msg, got));
          ASSERT_EQ(test::to_hex(got), test::to_hex(expected));
          // Truncated output, as SRTP (10, 4 bytes) and DTLS use it.
          const std::size_t t = 1 + below(rng, digest);
          Bytes truncated(t);
          ASSERT_TRUE(hmac.compute(msg, truncated));
          ASSERT_EQ(test::to_hex(truncated), test::to_hex({expected.data(), t}));
          ASSERT_TRUE(hmac.verify(msg, expected));
          ASSERT_TRUE(hmac.verify(msg, {expected.data(), t}));
          // Streamed in three uneven pieces.
          const std::size_t a = n == 0 ? 0 : below(rng, n + 1);
          const std::size_t b = a + (n - a == 0 ? 0 : below(rng, n - a + 1));
          Hmac::Stream s = hmac.begin();
          s.update(msg.first(a));
          s.update(msg.subspan(a, b - a));
          s.update(msg.subspan(b));
          Bytes streamed(digest);
          ASSERT_TRUE(s.finish(streamed));
          ASSERT_EQ(test::to_hex(streamed), test::to_hex(expected));
          // One batch job in the same three pieces (the lanes path with one lane).
          Bytes batched(t);
          HmacJob job{{msg.first(a), msg.subspan(a, b - a), msg.subspan(b)}, batched, {}};
          hmac.compute_batch({&job, 1});
          ASSERT_TRUE(job.status);
          ASSERT_EQ(test::to_hex(batched), test::to_hex({expected.data(), t}));
        }
      }
    }
  }
}

TEST(HmacBackends, SecretLengthHmacMatchesOpenSslOnEveryBackend) {
  std::mt19937_64 rng(kSeed + 37);
  for (const auto& h : hash_cases()) {
    for (Backend backend : expected_backends(hmac_primitive(h.hash))) {
      const Bytes key = random_bytes(rng, 32);
      const Hmac hmac(h.hash, key, backend);
      const std::size_t digest = hmac.digest_len();
      for (std::size_t header_len : {0u, 13u, 150u}) {
        const Bytes header = random_bytes(rng, header_len);
        for (std::size_t data_len : {0u, 1u, 55u, 56u, 64u, 112u, 128u, 300u}) {
          const Bytes data = random_bytes(rng, data_len);
          for (std::size_t min_len : {std::size_t{0}, data_len / 2}) {
            for (std::size_t n = min_len; n <= data_len; ++n) {
              Bytes msg = header;
              msg.insert(msg.end(), data.begin(), data.begin() + static_cast<long>(n));
              const Bytes expected = reference_hmac(h.md, key, msg.data(), msg.size());
              Bytes got(digest);
              hmac.compute_secret_length(header, data, n, min_len, got);
              ASSERT_EQ(test::to_hex(got), test::to_hex(expected))
                  << to_string(h.hash) << " " << to_string(backend) << " header " << header_len
                  << " data " << data_len << " min " << min_len << " n " << n;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace wireseal::crypto

namespace wireseal::crypto {
namespace {

using ::wireseal::test::below;

// Batches must give exactly what one-at-a-time calls give, whatever the mix of sizes, and a
// bad job in the middle must not disturb its neighbours.
TEST(AeadBatch, SealAndOpenBatchesMatchSingleCallsOnEveryBackend) {
  const AeadAlgorithm algorithms[] = {AeadAlgorithm::kAes128Ccm, AeadAlgorithm::kAes256Ccm,
                                      AeadAlgorithm::kAes128Gcm, AeadAlgorithm::kChaCha20Poly1305};
  for (AeadAlgorithm alg : algorithms) {
    for (Backend backend : expected_backends(primitive_of(alg))) {
      std::mt19937_64 rng(kSeed + 17);
      const Bytes key = random_bytes(rng, info(alg).key_len);
      const std::size_t tag_len = is_ccm(alg) ? 8 : 16;
      Aead aead(alg, key, {.tag_len = tag_len, .nonce_len = 12, .backend = backend});
      for (int round = 0; round < 40; ++round) {
        const std::size_t num_jobs = 1 + below(rng, 19);
        std::vector<Bytes> nonces, aads, pts, outs, tags;
        for (std::size_t i = 0; i < num_jobs; ++i) {
          nonces.push_back(random_bytes(rng, 12));
          aads.push_back(random_bytes(rng, below(rng, 40)));
          pts.push_back(random_bytes(rng, below(rng, 4) == 0 ? below(rng, 17) : below(rng, 1500)));
          outs.emplace_back(pts.back().size());
          tags.emplace_back(16);
        }
        std::vector<SealJob> jobs(num_jobs);
        for (std::size_t i = 0; i < num_jobs; ++i) {
          jobs[i] = SealJob{nonces[i], aads[i], pts[i], outs[i], tags[i], {}};
        }
        const std::size_t bad = below(rng, num_jobs);
        if (round % 3 == 0 && !pts[bad].empty()) {
          jobs[bad].out = jobs[bad].out.first(pts[bad].size() - 1);  // too small: must fail alone
        }
        aead.seal_batch(jobs);
        for (std::size_t i = 0; i < num_jobs; ++i) {
          SCOPED_TRACE(std::string(to_string(alg)) + " " + std::string(to_string(backend)) +
                       " round " + std::to_string(round) + " job " + std::to_string(i));
          if (round % 3 == 0 && i == bad && !pts[bad].empty()) {
            EXPECT_EQ(jobs[i].status.error(), Error::kBufferTooSmall);
            continue;
          }
          ASSERT_TRUE(jobs[i].status);
          const Bytes expected = reference_seal(alg, key, nonces[i], aads[i], pts[i], tag_len);
          ASSERT_EQ(test::to_hex(outs[i]), test::to_hex({expected.data(), pts[i].size()}));
          ASSERT_EQ(test::to_hex({tags[i].data(), tag_len}),
                    test::to_hex({expected.data() + pts[i].size(), tag_len}));
        }
        // Open in place, with one tag corrupted.
        std::vector<OpenJob> opens(num_jobs);
        const std::size_t corrupt = below(rng, num_jobs);
        tags[corrupt][0] ^= 1;
        for (std::size_t i = 0; i < num_jobs; ++i) {
          opens[i] = OpenJob{nonces[i], aads[i], outs[i], outs[i], {tags[i].data(), tag_len}, {}};
        }
        aead.open_batch(opens);
        for (std::size_t i = 0; i < num_jobs; ++i) {
          if (round % 3 == 0 && i == bad && !pts[bad].empty()) {
            continue;
          }
          if (i == corrupt) {
            EXPECT_EQ(opens[i].status.error(), Error::kAuthFailed);
            EXPECT_TRUE(
                std::all_of(outs[i].begin(), outs[i].end(), [](std::uint8_t b) { return b == 0; }));
          } else {
            ASSERT_TRUE(opens[i].status) << "job " << i;
            ASSERT_EQ(outs[i], pts[i]);
          }
        }
      }
    }
  }
}

// GCM batches against OpenSSL on every backend, sized for x86's multi-message VAES kernel
// (native backend): it takes batch jobs of up to 256 text bytes whose associated data and text
// fit 31 GHASH blocks, and hands the rest to ipsec-mb, so every text size 0..300 appears in
// batches mixed with long texts and long associated data (each in its own group of up to
// eight), at every key size and at both common tag lengths, in place and out of place. Opening
// must reject a flipped bit in any part without disturbing the batch's other jobs.
TEST(AeadBatch, GcmBatchesMatchOpenSslAtEverySizeAndMix) {
  const AeadAlgorithm algorithms[] = {AeadAlgorithm::kAes128Gcm, AeadAlgorithm::kAes192Gcm,
                                      AeadAlgorithm::kAes256Gcm};
  for (AeadAlgorithm alg : algorithms) {
    for (std::size_t tag_len : {16u, 12u}) {
      for (Backend backend : expected_backends(primitive_of(alg))) {
        std::mt19937_64 rng(kSeed + 29 + tag_len);
        const Bytes key = random_bytes(rng, info(alg).key_len);
        Aead aead(alg, key, {.tag_len = tag_len, .nonce_len = 12, .backend = backend});
        std::size_t next_size = 0;  // walks 0..300 so that every size is in some batch
        while (next_size <= 300) {
          const std::size_t num_jobs = 1 + below(rng, 20);
          std::vector<Bytes> nonces, aads, pts, ins, outs, tags;
          for (std::size_t i = 0; i < num_jobs; ++i) {
            const std::size_t dice = below(rng, 10);
            const std::size_t n = dice == 0 ? 257 + below(rng, 1500) : next_size++;
            nonces.push_back(random_bytes(rng, 12));
            aads.push_back(random_bytes(rng, dice == 1 ? 400 + below(rng, 300) : below(rng, 49)));
            pts.push_back(random_bytes(rng, n));
            ins.push_back(pts.back());
            ins.back().insert(ins.back().begin(), below(rng, 16), 0xee);  // random offset
            outs.emplace_back(n + 16, 0xdd);
            tags.emplace_back(tag_len);
          }
          std::vector<SealJob> jobs(num_jobs);
          for (std::size_t i = 0; i < num_jobs; ++i) {
            const std::size_t off = ins[i].size() - pts[i].size();
            const bool in_place = (rng() & 1) != 0;
            std::span<std::uint8_t> in(ins[i].data() + off, pts[i].size());
            jobs[i] = SealJob{
                nonces[i],
                aads[i],
                in,
                in_place ? in : std::span<std::uint8_t>(outs[i].data() + off % 3, pts[i].size()),
                tags[i],
                {}};
          }
          aead.seal_batch(jobs);
          std::vector<Bytes> cts;
          for (std::size_t i = 0; i < num_jobs; ++i) {
            SCOPED_TRACE(std::string(to_string(alg)) + " t" + std::to_string(tag_len) + " " +
                         std::string(to_string(backend)) + " job " + std::to_string(i) + " size " +
                         std::to_string(pts[i].size()) + " aad " + std::to_string(aads[i].size()));
            ASSERT_TRUE(jobs[i].status);
            const Bytes expected = reference_seal(alg, key, nonces[i], aads[i], pts[i], tag_len);
            ASSERT_EQ(test::to_hex(jobs[i].out), test::to_hex({expected.data(), pts[i].size()}));
            ASSERT_EQ(test::to_hex(tags[i]),
                      test::to_hex({expected.data() + pts[i].size(), tag_len}));
            cts.emplace_back(jobs[i].out.begin(), jobs[i].out.end());
          }
          // Open in place; about one job in four has one bit flipped in its associated data,
          // its ciphertext or its tag.
          std::vector<bool> forged(num_jobs);
          std::vector<OpenJob> opens(num_jobs);
          for (std::size_t i = 0; i < num_jobs; ++i) {
            forged[i] = below(rng, 4) == 0;
            if (forged[i]) {
              Bytes& part = below(rng, 3) == 0 && !aads[i].empty()  ? aads[i]
                            : below(rng, 2) == 0 && !cts[i].empty() ? cts[i]
                                                                    : tags[i];
              part[below(rng, part.size())] ^= static_cast<std::uint8_t>(1u << below(rng, 8));
            }
            opens[i] = OpenJob{nonces[i], aads[i], cts[i], cts[i], tags[i], {}};
          }
          aead.open_batch(opens);
          for (std::size_t i = 0; i < num_jobs; ++i) {
            SCOPED_TRACE(std::string(to_string(backend)) + " open job " + std::to_string(i) +
                         " size " + std::to_string(pts[i].size()));
            if (forged[i]) {
              ASSERT_EQ(opens[i].status.error(), Error::kAuthFailed);
              ASSERT_TRUE(
                  std::all_of(cts[i].begin(), cts[i].end(), [](std::uint8_t b) { return b == 0; }));
            } else {
              ASSERT_TRUE(opens[i].status);
              ASSERT_EQ(cts[i], pts[i]);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace wireseal::crypto

namespace wireseal::crypto {
namespace {

using ::wireseal::test::below;

// compute_batch (multi-buffer SHA-1 on SHA-NI CPUs) must equal compute() on the concatenated
// parts for every split, length around the block and padding boundaries, and truncation.
TEST(HmacBatch, EqualsOneAtATimeForEveryHashAndSplit) {
  std::mt19937_64 rng(kSeed + 23);
  for (HashAlgorithm hash :
       {HashAlgorithm::kSha1, HashAlgorithm::kSha256, HashAlgorithm::kSha384}) {
    const Bytes key = random_bytes(rng, 20);
    const Hmac hmac(hash, key);
    for (int round = 0; round < 300; ++round) {
      const std::size_t num_jobs = 1 + below(rng, 21);
      std::vector<Bytes> messages, outs;
      std::vector<HmacJob> jobs(num_jobs);
      for (std::size_t i = 0; i < num_jobs; ++i) {
        const std::size_t len = below(rng, 3) == 0 ? 40 + below(rng, 100) : below(rng, 1500);
        messages.push_back(random_bytes(rng, len));
        outs.emplace_back(1 + below(rng, hmac.digest_len()));
      }
      for (std::size_t i = 0; i < num_jobs; ++i) {
        jobs[i] = split_job(rng, messages[i], outs[i]);
      }
      hmac.compute_batch(jobs);
      for (std::size_t i = 0; i < num_jobs; ++i) {
        ASSERT_TRUE(jobs[i].status);
        Bytes expected(outs[i].size());
        ASSERT_TRUE(hmac.compute(messages[i], expected));
        ASSERT_EQ(outs[i], expected) << to_string(hash) << " round " << round << " job " << i
                                     << " len " << messages[i].size();
      }
    }
  }
}

// compute_batch on every backend against OpenSSL's HMAC(): batches of 1..37 jobs (the lanes
// run in groups of four inside groups of sixteen), every message size 0..300 in some batch,
// random splits into the three parts, truncations, and an invalid job among valid ones.
TEST(HmacBatch, EveryBackendMatchesOpenSslForEverySizeAndSplit) {
  for (const auto& h : hash_cases()) {
    for (Backend backend : expected_backends(hmac_primitive(h.hash))) {
      std::mt19937_64 rng(kSeed + 41 + static_cast<std::uint64_t>(h.hash));
      const Bytes key = random_bytes(rng, 1 + below(rng, 100));
      const Hmac hmac(h.hash, key, backend);
      const std::size_t digest = hmac.digest_len();
      std::size_t next_size = 0;  // walks 0..300 so that every size is in some batch
      for (int round = 0; round < 120; ++round) {
        const std::size_t num_jobs = 1 + below(rng, 37);
        std::vector<Bytes> messages, outs;
        for (std::size_t i = 0; i < num_jobs; ++i) {
          std::size_t len = 0;
          if (next_size <= 300) {
            len = next_size++;
          } else {
            len = below(rng, 8) == 0 ? 1000 + below(rng, 9000) : below(rng, 301);
          }
          messages.push_back(random_bytes(rng, len));
          outs.emplace_back(1 + below(rng, digest));
        }
        std::vector<HmacJob> jobs(num_jobs);
        for (std::size_t i = 0; i < num_jobs; ++i) {
          jobs[i] = split_job(rng, messages[i], outs[i]);
        }
        const std::size_t bad = below(rng, num_jobs);
        const bool with_bad = round % 4 == 0;
        if (with_bad) {
          jobs[bad].out = {};  // no output: must fail alone
        }
        hmac.compute_batch(jobs);
        for (std::size_t i = 0; i < num_jobs; ++i) {
          SCOPED_TRACE(std::string(to_string(h.hash)) + " backend=" +
                       std::string(to_string(backend)) + " round " + std::to_string(round) +
                       " job " + std::to_string(i) + " len " + std::to_string(messages[i].size()));
          if (with_bad && i == bad) {
            EXPECT_EQ(jobs[i].status.error(), Error::kInvalidArgument);
            continue;
          }
          ASSERT_TRUE(jobs[i].status);
          const Bytes expected = reference_hmac(h.md, key, messages[i].data(), messages[i].size());
          ASSERT_EQ(test::to_hex(outs[i]), test::to_hex({expected.data(), outs[i].size()}));
        }
      }
      EXPECT_GT(next_size, 300u);
    }
  }
}

}  // namespace
}  // namespace wireseal::crypto

namespace wireseal::crypto {
namespace {

using ::wireseal::test::below;

TEST(AesCbcBatch, EncryptBatchEqualsOneAtATimeOnEveryBackend) {
  for (Backend backend : expected_backends(Primitive::kAesCbc)) {
    std::mt19937_64 rng(kSeed + 29);
    for (std::size_t key_len : {16u, 32u}) {
      const Bytes key = random_bytes(rng, key_len);
      AesCbc cbc(key, backend);
      for (int round = 0; round < 200; ++round) {
        const std::size_t num_jobs = 1 + below(rng, 19);
        std::vector<Bytes> ivs, ins, outs;
        for (std::size_t i = 0; i < num_jobs; ++i) {
          ivs.push_back(random_bytes(rng, 16));
          ins.push_back(random_bytes(rng, 16 * (below(rng, 100))));
          outs.emplace_back(ins.back().size());
        }
        std::vector<CbcJob> jobs(num_jobs);
        for (std::size_t i = 0; i < num_jobs; ++i) {
          // Every third job in place.
          jobs[i] = i % 3 == 0 ? CbcJob{ivs[i], outs[i], outs[i], {}}
                               : CbcJob{ivs[i], ins[i], outs[i], {}};
          if (i % 3 == 0) {
            outs[i] = ins[i];
          }
        }
        cbc.encrypt_batch(jobs);
        for (std::size_t i = 0; i < num_jobs; ++i) {
          ASSERT_TRUE(jobs[i].status);
          Bytes expected(ins[i].size());
          ASSERT_TRUE(
              cbc.encrypt(std::span<const std::uint8_t, 16>(ivs[i].data(), 16), ins[i], expected));
          ASSERT_EQ(outs[i], expected) << to_string(backend) << " round " << round << " job " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace wireseal::crypto
