// Known-answer and cross-implementation tests for the key derivation functions:
//  - kbkdf_counter against NIST's SP 800-108 counter-mode CAVP file (python3-cryptography-
//    vectors), every HMAC and CMAC PRF, every counter location and counter width;
//  - tls12_prf against the published TLS 1.2 PRF vectors (tests/vectors/tls12_prf.txt) and
//    against OpenSSL's EVP_KDF "TLS1-PRF";
//  - srtp_kdf and the AES-CM keystream (AesCtr) against RFC 3711 B.2/B.3, RFC 6188 and
//    RFC 9335 (tests/vectors/srtp_kdf.txt);
//  - sp800_108_hmac_sha256 against kbkdf_counter and OpenSSL's EVP_KDF "KBKDF".
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crypto_test_util.h"
#include "support/hex.h"
#include "support/openssl_kdf.h"
#include "support/vector_file.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/kdf.h"

namespace wireseal::test {
namespace {

using crypto::Backend;
using crypto::HashAlgorithm;
using crypto::KbkdfPrf;
using crypto::Primitive;

Bytes bytes_of(std::string_view s) { return Bytes(s.begin(), s.end()); }

Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<std::uint8_t>(seed + 31 * i);
  }
  return b;
}

// --- SP 800-108 counter mode, NIST CAVP (KBKDF-CTR). Sections [PRF=..] [CTRLOCATION=..]
// [RLEN=.._BITS]; records COUNT, L (bits), KI, FixedInputData, or DataBeforeCtrData and
// DataAfterCtrData for MIDDLE_FIXED, KO.
const std::map<std::string, KbkdfPrf>& kbkdf_prfs() {
  static const std::map<std::string, KbkdfPrf> prfs = {
      {"HMAC_SHA1", KbkdfPrf::kHmacSha1},     {"HMAC_SHA224", KbkdfPrf::kHmacSha224},
      {"HMAC_SHA256", KbkdfPrf::kHmacSha256}, {"HMAC_SHA384", KbkdfPrf::kHmacSha384},
      {"HMAC_SHA512", KbkdfPrf::kHmacSha512}, {"CMAC_AES128", KbkdfPrf::kCmacAes128},
      {"CMAC_AES192", KbkdfPrf::kCmacAes192}, {"CMAC_AES256", KbkdfPrf::kCmacAes256},
  };
  return prfs;
}

TEST(KbkdfCavp, CounterModeVectorsMatchForEveryPrfLocationAndWidth) {
  const std::string file = "nist-800-108-KBKDF-CTR.txt";
  FailureLog log;
  std::map<std::string, int> run_per_prf;
  std::map<std::string, int> run_per_location;
  std::map<std::string, int> not_applicable;
  std::set<std::string> widths;
  int total = 0;
  for (const VectorRecord& r : read_vectors_or_fail(cavp_dir() / "KDF" / file)) {
    if (!r.has("COUNT")) {
      continue;
    }
    ++total;
    const std::string where = file + ":" + std::to_string(r.line);
    const std::string& prf_name = r.section.at("PRF");
    const auto prf = kbkdf_prfs().find(prf_name);
    if (prf == kbkdf_prfs().end()) {
      ++not_applicable[prf_name];
      continue;
    }
    const std::string& location = r.section.at("CTRLOCATION");
    const std::string& rlen = r.section.at("RLEN");
    const std::size_t counter_bits = std::stoul(rlen.substr(0, rlen.find('_')));
    const std::size_t out_bits = std::stoul(r.get("L"));
    ASSERT_EQ(out_bits % 8, 0u) << where;
    Bytes before;
    Bytes after;
    if (location == "BEFORE_FIXED") {
      after = r.hex("FixedInputData");
    } else if (location == "AFTER_FIXED") {
      before = r.hex("FixedInputData");
    } else if (location == "MIDDLE_FIXED") {
      before = r.hex("DataBeforeCtrData");
      after = r.hex("DataAfterCtrData");
      EXPECT_EQ(before.size(), std::stoul(r.get("DataBeforeCtrLen"))) << where;
      EXPECT_EQ(after.size(), std::stoul(r.get("DataAfterCtrLen"))) << where;
    } else {
      FAIL() << where << ": unknown CTRLOCATION " << location;
    }
    if (location != "MIDDLE_FIXED") {
      EXPECT_EQ(before.size() + after.size(), std::stoul(r.get("FixedInputDataByteLen"))) << where;
    }
    const Bytes expected = r.hex("KO");
    EXPECT_EQ(expected.size() * 8, out_bits) << where;
    Bytes out(out_bits / 8);
    const Status s =
        crypto::kbkdf_counter(prf->second, r.hex("KI"), before, after, counter_bits, out);
    if (!s || out != expected) {
      log.fail(where, prf_name + " " + location + " r=" + std::to_string(counter_bits) + ": " +
                          (s ? to_hex(out) : std::string(to_string(s.error()))) + ", want " +
                          to_hex(expected));
    }
    ++run_per_prf[prf_name];
    ++run_per_location[location];
    widths.insert(rlen);
  }
  EXPECT_EQ(log.count(), 0);
  EXPECT_EQ(total, 4800);
  EXPECT_EQ(run_per_prf.size(), kbkdf_prfs().size()) << "a PRF ran no vectors";
  for (const auto& [prf, n] : run_per_prf) {
    EXPECT_EQ(n, 480) << prf;
  }
  for (const char* location : {"BEFORE_FIXED", "AFTER_FIXED", "MIDDLE_FIXED"}) {
    EXPECT_EQ(run_per_location[location], 1280) << location;
  }
  EXPECT_EQ(widths.size(), 4u);
  int skipped = 0;
  std::string skipped_names;
  for (const auto& [prf, n] : not_applicable) {
    skipped += n;
    skipped_names += (skipped_names.empty() ? "" : ", ") + prf;
  }
  EXPECT_EQ(skipped, 960);
  report("KBKDF " + file, std::to_string(total - skipped) + " vectors run (8 PRFs x 3 counter " +
                              "locations x 4 widths), " + std::to_string(skipped) +
                              " not applicable (" + skipped_names + ")");
}

TEST(KbkdfCounter, RejectsUnsupportedCounterWidthsAndCmacKeySizes) {
  Bytes out(16);
  const Bytes key(16, 1);
  const Bytes fixed(8, 2);
  for (std::size_t bits : {0u, 4u, 12u, 40u, 64u}) {
    const Status s = crypto::kbkdf_counter(KbkdfPrf::kHmacSha256, key, {}, fixed, bits, out);
    ASSERT_FALSE(s) << bits;
    EXPECT_EQ(s.error(), Error::kInvalidArgument) << bits;
  }
  const Status s = crypto::kbkdf_counter(KbkdfPrf::kCmacAes128, Bytes(15, 1), {}, fixed, 32, out);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), Error::kInvalidArgument);
}

// --- TLS 1.2 PRF.
TEST(Tls12Prf, PublishedVectorsMatch) {
  int count = 0;
  for (const VectorRecord& r : read_vectors_or_fail(vectors_dir() / "tls12_prf.txt")) {
    const HashAlgorithm hash =
        r.get("Hash") == "SHA-256" ? HashAlgorithm::kSha256 : HashAlgorithm::kSha384;
    const Bytes expected = r.hex("Output");
    Bytes out(expected.size());
    ASSERT_TRUE(crypto::tls12_prf(hash, r.hex("Secret"), r.get("Label"), r.hex("Seed"), out));
    EXPECT_EQ(to_hex(out), to_hex(expected)) << "line " << r.line;
    // The same vectors through OpenSSL prove the transcription, not only wireseal.
    EXPECT_EQ(to_hex(openssl_tls12_prf(hash, r.hex("Secret"), r.get("Label"), r.hex("Seed"),
                                       expected.size())),
              to_hex(expected))
        << "line " << r.line;
    ++count;
  }
  EXPECT_EQ(count, 2);
}

TEST(Tls12Prf, MatchesOpenSslTls1PrfForManyInputs) {
  const Bytes secrets[] = {pattern(48, 1), pattern(13, 2), pattern(150, 3)};
  const std::string_view labels[] = {"master secret", "key expansion", "extended master secret",
                                     "client finished", "x"};
  const Bytes seeds[] = {pattern(64, 4), pattern(32, 5), pattern(1, 6), {}};
  const std::size_t lengths[] = {1, 12, 32, 47, 48, 104, 200};
  FailureLog log;
  int cases = 0;
  for (HashAlgorithm hash : {HashAlgorithm::kSha256, HashAlgorithm::kSha384}) {
    for (const Bytes& secret : secrets) {
      for (std::string_view label : labels) {
        for (const Bytes& seed : seeds) {
          for (std::size_t n : lengths) {
            Bytes out(n);
            const Status s = crypto::tls12_prf(hash, secret, label, seed, out);
            const Bytes want = openssl_tls12_prf(hash, secret, label, seed, n);
            if (!s || out != want) {
              log.fail(std::string(crypto::to_string(hash)) + " label '" + std::string(label) +
                           "' secret " + std::to_string(secret.size()) + " seed " +
                           std::to_string(seed.size()) + " n " + std::to_string(n),
                       to_hex(out) + " != " + to_hex(want));
            }
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_EQ(log.count(), 0);
  report("TLS 1.2 PRF vs OpenSSL TLS1-PRF", std::to_string(cases) + " cases");
}

// --- SRTP: srtp_kdf records (MasterKey, MasterSalt, Label, Output) and AES-CM keystream
// records (SessionKey, Counter, Keystream) in tests/vectors/srtp_kdf.txt.
struct SrtpKdfVector {
  Bytes master_key, master_salt, output;
  std::uint8_t label;
  int line;
};

std::vector<SrtpKdfVector> load_srtp_kdf() {
  std::vector<SrtpKdfVector> out;
  for (const VectorRecord& r : read_vectors_or_fail(vectors_dir() / "srtp_kdf.txt")) {
    if (r.has("MasterKey")) {
      const Bytes label = r.hex("Label");
      EXPECT_EQ(label.size(), 1u) << "line " << r.line;
      out.push_back({r.hex("MasterKey"), r.hex("MasterSalt"), r.hex("Output"),
                     label.empty() ? std::uint8_t{0xff} : label[0], r.line});
    }
  }
  return out;
}

void check_srtp_kdf(const SrtpKdfVector& v) {
  Bytes out(v.output.size(), 0xa5);
  const Status s = crypto::srtp_kdf(v.master_key, v.master_salt,
                                    static_cast<crypto::SrtpKdfLabel>(v.label), out);
  ASSERT_TRUE(s) << "line " << v.line << ": " << to_string(s.error());
  EXPECT_EQ(to_hex(out), to_hex(v.output))
      << "srtp_kdf.txt line " << v.line << ": " << v.master_key.size() * 8 << "-bit key, "
      << v.master_salt.size() << "-byte salt, label " << int{v.label};
}

TEST(SrtpKdf, Rfc3711AndRfc6188VectorsMatch) {
  int count = 0;
  std::set<std::size_t> key_sizes;
  for (const SrtpKdfVector& v : load_srtp_kdf()) {
    if (v.master_salt.size() != 14) {
      continue;
    }
    check_srtp_kdf(v);
    key_sizes.insert(v.master_key.size());
    ++count;
  }
  EXPECT_EQ(count, 9);
  EXPECT_EQ(key_sizes, (std::set<std::size_t>{16, 24, 32}));
}

// RFC 7714 AEAD profiles have a 12-octet master salt; RFC 9335 Appendix A.2 prints the session
// key and salt derived from one (the same values libsrtp derives).
TEST(SrtpKdf, TwelveByteAeadSaltMatchesRfc9335) {
  int count = 0;
  for (const SrtpKdfVector& v : load_srtp_kdf()) {
    if (v.master_salt.size() == 12) {
      check_srtp_kdf(v);
      ++count;
    }
  }
  EXPECT_EQ(count, 2);
}

// A non-zero index DIV kdr enters the low 48 bits of key_id (RFC 3711 section 4.3.1): compare
// with an AES-CTR keystream computed by OpenSSL from an IV built here independently.
TEST(SrtpKdf, IndexDivKdrMatchesIndependentAesCmConstruction) {
  const Bytes master_key = pattern(16, 7);
  const Bytes master_salt = pattern(14, 9);
  for (std::uint64_t r : {std::uint64_t{1}, std::uint64_t{0x123456789abc}}) {
    for (std::uint8_t label : {std::uint8_t{0}, std::uint8_t{3}, std::uint8_t{5}}) {
      // x = (label || r) XOR master_salt, 112 bits; IV = x * 2^16.
      std::array<std::uint8_t, 16> iv{};
      std::copy(master_salt.begin(), master_salt.end(), iv.begin());
      iv[7] = static_cast<std::uint8_t>(iv[7] ^ label);
      for (int i = 0; i < 6; ++i) {
        iv[static_cast<std::size_t>(13 - i)] =
            static_cast<std::uint8_t>(iv[static_cast<std::size_t>(13 - i)] ^ (r >> (8 * i)));
      }
      Bytes want(46);
      EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
      int len = 0;
      const Bytes zeros(want.size());
      ASSERT_EQ(EVP_EncryptInit_ex(ctx, EVP_aes_128_ctr(), nullptr, master_key.data(), iv.data()),
                1);
      ASSERT_EQ(
          EVP_EncryptUpdate(ctx, want.data(), &len, zeros.data(), static_cast<int>(zeros.size())),
          1);
      EVP_CIPHER_CTX_free(ctx);
      Bytes out(want.size());
      ASSERT_TRUE(crypto::srtp_kdf(master_key, master_salt,
                                   static_cast<crypto::SrtpKdfLabel>(label), out, r));
      EXPECT_EQ(to_hex(out), to_hex(want)) << "r " << r << " label " << int{label};
    }
  }
}

TEST(SrtpKdf, RejectsBadKeyAndSaltSizes) {
  Bytes out(16);
  for (std::size_t key_len : {0u, 15u, 20u, 33u}) {
    const Status s = crypto::srtp_kdf(Bytes(key_len, 1), Bytes(14, 2),
                                      crypto::SrtpKdfLabel::kRtpEncryption, out);
    ASSERT_FALSE(s) << key_len;
    EXPECT_EQ(s.error(), Error::kInvalidArgument);
  }
  const Status s =
      crypto::srtp_kdf(Bytes(16, 1), Bytes(15, 2), crypto::SrtpKdfLabel::kRtpEncryption, out);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), Error::kInvalidArgument);
}

// RFC 3711 B.2: AES-CM keystream blocks through AesCtr on every backend, block by block and as
// runs of consecutive counters (which cross the ...FEFF -> ...FF00 carry).
TEST(AesCmKeystream, Rfc3711B2MatchesOnEveryBackend) {
  struct Block {
    Bytes key, counter, keystream;
  };
  std::vector<Block> blocks;
  for (const VectorRecord& r : read_vectors_or_fail(vectors_dir() / "srtp_kdf.txt")) {
    if (r.has("SessionKey")) {
      blocks.push_back({r.hex("SessionKey"), r.hex("Counter"), r.hex("Keystream")});
      ASSERT_EQ(blocks.back().counter.size(), 16u);
    }
  }
  ASSERT_EQ(blocks.size(), 6u);
  // Runs: blocks whose counters follow each other.
  std::vector<std::vector<const Block*>> runs;
  for (const Block& b : blocks) {
    if (!runs.empty()) {
      Bytes next = runs.back().back()->counter;
      for (std::size_t i = 16; i-- > 0;) {
        if (++next[i] != 0) {
          break;
        }
      }
      if (next == b.counter) {
        runs.back().push_back(&b);
        continue;
      }
    }
    runs.push_back({&b});
  }
  ASSERT_EQ(runs.size(), 2u);
  const std::vector<Backend> backends = expected_backends(Primitive::kAesCtr);
  for (Backend backend : backends) {
    SCOPED_TRACE(std::string(crypto::to_string(backend)));
    for (const auto& run : runs) {
      crypto::AesCtr ctr(run.front()->key, backend);
      Bytes want;
      for (const Block* b : run) {
        Bytes out(16);
        ASSERT_TRUE(
            ctr.apply(std::span<const std::uint8_t, 16>(b->counter.data(), 16), Bytes(16, 0), out));
        EXPECT_EQ(to_hex(out), to_hex(b->keystream)) << to_hex(b->counter);
        want.insert(want.end(), b->keystream.begin(), b->keystream.end());
      }
      // The whole run in one call, in place, with a partial final block.
      Bytes buf(want.size() - 3, 0);
      ASSERT_TRUE(
          ctr.apply(std::span<const std::uint8_t, 16>(run.front()->counter.data(), 16), buf, buf));
      EXPECT_EQ(to_hex(buf), to_hex(std::span(want).first(buf.size())))
          << "run from " << to_hex(run.front()->counter);
    }
  }
  report("AES-CM RFC 3711 B.2",
         std::to_string(blocks.size()) + " keystream blocks on " + backend_names(backends));
}

// --- SP 800-108 HMAC-SHA256 as SMB 3.x uses it.
Bytes openssl_kbkdf_hmac_sha256(const Bytes& key, const Bytes& label, const Bytes& context,
                                std::size_t n) {
  std::string mode = "COUNTER";
  std::string mac = "HMAC";
  std::string digest = "SHA256";
  Bytes k = key;
  Bytes salt = label;
  Bytes info = context;
  // OpenSSL's KBKDF builds label || 0x00 || context || [L]_32 by default (use-separator = 1,
  // use-l = 1) with a 32-bit counter before it: the SMB construction.
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE, mode.data(), 0),
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MAC, mac.data(), 0),
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest.data(), 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, k.data(), k.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt.data(), salt.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(), info.size()),
      OSSL_PARAM_construct_end()};
  return openssl_kdf(OSSL_KDF_NAME_KBKDF, params, n);
}

struct SmbKdfCase {
  std::string_view label;    // as SMB passes it, including the terminating NUL
  std::string_view context;  // ditto; the 3.1.1 context is the preauth hash (see below)
};

TEST(Sp800108HmacSha256, MatchesKbkdfCounterAndOpenSslKbkdf) {
  using std::string_view_literals::operator""sv;
  const SmbKdfCase cases[] = {
      {"SMB2AESCMAC\0"sv, "SmbSign\0"sv},
      {"SMB2AESCCM\0"sv, "ServerIn \0"sv},
      {"SMB2AESCCM\0"sv, "ServerOut\0"sv},
      {"SMB2APP\0"sv, "SmbRpc\0"sv},
      {"SMBSigningKey\0"sv, ""sv},
      {"SMBC2SCipherKey\0"sv, ""sv},
      {"x"sv, "a much longer context string to cross HMAC blocks, 0123456789abcdef"sv},
  };
  const Bytes keys[] = {pattern(16, 11), pattern(32, 12), pattern(70, 13)};
  const std::size_t lengths[] = {1, 16, 31, 32, 33, 64, 100};
  FailureLog log;
  int count = 0;
  for (const SmbKdfCase& c : cases) {
    Bytes context = bytes_of(c.context);
    if (context.empty()) {
      context = pattern(64, 17);  // SMB 3.1.1: the 64-byte preauth integrity hash
    }
    const Bytes label = bytes_of(c.label);
    for (const Bytes& key : keys) {
      for (std::size_t n : lengths) {
        const std::string where = "label " + to_hex(label) + " key " + std::to_string(key.size()) +
                                  " n " + std::to_string(n);
        Bytes out(n);
        if (Status s = crypto::sp800_108_hmac_sha256(key, label, context, out); !s) {
          log.fail(where, std::string("returned ") + to_string(s.error()));
          continue;
        }
        // The construction spelled out through kbkdf_counter.
        Bytes fixed = label;
        fixed.push_back(0);
        fixed.insert(fixed.end(), context.begin(), context.end());
        const auto bits = static_cast<std::uint32_t>(n * 8);
        for (int shift = 24; shift >= 0; shift -= 8) {
          fixed.push_back(static_cast<std::uint8_t>(bits >> shift));
        }
        Bytes via_counter(n);
        if (!crypto::kbkdf_counter(KbkdfPrf::kHmacSha256, key, {}, fixed, 32, via_counter) ||
            via_counter != out) {
          log.fail(where,
                   "kbkdf_counter gives " + to_hex(via_counter) + ", sp800_108 " + to_hex(out));
        }
        const Bytes want = openssl_kbkdf_hmac_sha256(key, label, context, n);
        if (want != out) {
          log.fail(where, "OpenSSL KBKDF gives " + to_hex(want) + ", wireseal " + to_hex(out));
        }
        ++count;
      }
    }
  }
  EXPECT_EQ(log.count(), 0);
  report("SP 800-108 HMAC-SHA256 (SMB)",
         std::to_string(count) + " cases vs kbkdf_counter and OpenSSL KBKDF");
}

}  // namespace
}  // namespace wireseal::test
