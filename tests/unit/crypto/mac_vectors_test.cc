// Known-answer tests for the MACs: AES-CMAC (NIST SP 800-38B examples), HMAC (RFC 2202 and
// RFC 4231, plus their truncated cases in tests/vectors/hmac_truncated.txt) and AES-GMAC
// (derived from the GCM CAVP records with an empty plaintext). Files from
// python3-cryptography-vectors are read in place; every MAC runs on every available backend.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "crypto_test_util.h"
#include "support/hex.h"
#include "support/vector_file.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/crypto/mac.h"

namespace wireseal::test {
namespace {

using crypto::AesCmac;
using crypto::AesGmac;
using crypto::Backend;
using crypto::HashAlgorithm;
using crypto::Hmac;
using crypto::Primitive;

std::string where_of(const std::string& file, const VectorRecord& r) {
  return file + ":" + std::to_string(r.line);
}

Bytes flipped(Bytes b, std::size_t bit) {
  b[bit / 8] = static_cast<std::uint8_t>(b[bit / 8] ^ (1u << (bit % 8)));
  return b;
}

// --- AES-CMAC: COUNT / KEY / MESSAGE / OUTPUT records.
struct CmacVector {
  Bytes key, message, mac;
  std::string where;
};

std::vector<CmacVector> load_cmac(const std::string& file) {
  std::vector<CmacVector> out;
  for (const VectorRecord& r : read_vectors_or_fail(cavp_dir() / "CMAC" / file)) {
    if (r.has("COUNT")) {
      out.push_back({r.hex("KEY"), r.hex("MESSAGE"), r.hex("OUTPUT"), where_of(file, r)});
    }
  }
  return out;
}

void check_cmac(const CmacVector& v, Backend backend, FailureLog& log) {
  const std::string where = v.where + " [" + std::string(crypto::to_string(backend)) + "]";
  AesCmac cmac(v.key, backend);
  Bytes mac(crypto::kCmacLength);
  if (Status s = cmac.compute(v.message, mac); !s || mac != v.mac) {
    log.fail(where, "compute gave " + to_hex(mac) + ", want " + to_hex(v.mac));
  }
  Bytes short_mac(8);
  if (Status s = cmac.compute(v.message, short_mac);
      !s || to_hex(short_mac) != to_hex(std::span(v.mac).first(8))) {
    log.fail(where, "truncated compute gave " + to_hex(short_mac));
  }
  for (std::size_t len : {std::size_t{16}, std::size_t{8}, std::size_t{4}, std::size_t{1}}) {
    if (!cmac.verify(v.message, std::span(v.mac).first(len))) {
      log.fail(where, "verify rejects the correct " + std::to_string(len) + "-byte tag");
    }
  }
  if (cmac.verify(v.message, flipped(v.mac, 127))) {
    log.fail(where, "verify accepts a tag with its last bit flipped");
  }
  // compute_batch: the same message twice, full and truncated.
  Bytes batch_full(16);
  Bytes batch_short(5);
  crypto::CmacJob jobs[] = {{v.message, batch_full, {}}, {v.message, batch_short, {}}};
  cmac.compute_batch(jobs);
  if (!jobs[0].status || !jobs[1].status || batch_full != v.mac ||
      to_hex(batch_short) != to_hex(std::span(v.mac).first(5))) {
    log.fail(where, "compute_batch gave " + to_hex(batch_full) + " / " + to_hex(batch_short));
  }
}

TEST(AesCmacVectors, NistExamplesMatchOnEveryBackend) {
  const std::vector<Backend> backends = expected_backends(Primitive::kAesCmac);
  ASSERT_FALSE(backends.empty());
  FailureLog log;
  for (const char* file :
       {"nist-800-38b-aes128.txt", "nist-800-38b-aes192.txt", "nist-800-38b-aes256.txt"}) {
    const std::vector<CmacVector> vectors = load_cmac(file);
    EXPECT_EQ(vectors.size(), 4u) << file;
    for (const CmacVector& v : vectors) {
      for (Backend b : backends) {
        check_cmac(v, b, log);
      }
    }
    report(std::string("AES-CMAC ") + file,
           std::to_string(vectors.size()) + " vectors run on " + backend_names(backends));
  }
  EXPECT_EQ(log.count(), 0);
  // The TDES file is not applicable: wireseal's CMAC is AES only. Count it so it is visible.
  const auto tdes = read_vectors_or_fail(cavp_dir() / "CMAC/nist-800-38b-3des.txt");
  std::size_t tdes_records = 0;
  for (const VectorRecord& r : tdes) {
    tdes_records += r.has("COUNT") ? 1u : 0u;
  }
  EXPECT_EQ(tdes_records, 8u);
  report("AES-CMAC nist-800-38b-3des.txt",
         std::to_string(tdes_records) + " vectors not applicable (TDES-CMAC is not offered)");
}

// --- HMAC: Len / Key / Msg / MD records (Len is the message length in bits).
struct HmacFile {
  const char* name;
  HashAlgorithm hash;
  std::size_t records;
};
constexpr HmacFile kHmacFiles[] = {
    {"rfc-2202-sha1.txt", HashAlgorithm::kSha1, 7},
    {"rfc-4231-sha224.txt", HashAlgorithm::kSha224, 6},
    {"rfc-4231-sha256.txt", HashAlgorithm::kSha256, 6},
    {"rfc-4231-sha384.txt", HashAlgorithm::kSha384, 6},
    {"rfc-4231-sha512.txt", HashAlgorithm::kSha512, 6},
};

// check_hmac_on checks compute, Stream, and verify of `md` on one backend.
void check_hmac_on(HashAlgorithm hash, Backend backend, const Bytes& key, const Bytes& msg,
                   const Bytes& md, const std::string& where, FailureLog& log) {
  const Hmac hmac(hash, key, backend);
  Bytes out(md.size());
  if (Status s = hmac.compute(msg, out); !s || out != md) {
    log.fail(where, "compute gave " + to_hex(out) + ", want " + to_hex(md));
  }
  // The same MAC through a Stream, message in three pieces.
  Hmac::Stream stream = hmac.begin();
  const std::size_t a = msg.size() / 3;
  const std::size_t b = 2 * msg.size() / 3;
  stream.update(std::span(msg).first(a));
  stream.update(std::span(msg).subspan(a, b - a));
  stream.update(std::span(msg).subspan(b));
  Bytes streamed(md.size());
  if (Status s = stream.finish(streamed); !s || streamed != md) {
    log.fail(where, "Stream gave " + to_hex(streamed));
  }
  // The same pieces as one batch job (the multi-buffer path).
  Bytes batched(md.size());
  crypto::HmacJob job{
      {std::span(msg).first(a), std::span(msg).subspan(a, b - a), std::span(msg).subspan(b)},
      batched,
      {}};
  hmac.compute_batch({&job, 1});
  if (!job.status || batched != md) {
    log.fail(where, "compute_batch gave " + to_hex(batched));
  }
  if (!hmac.verify(msg, md)) {
    log.fail(where, "verify rejects the correct " + std::to_string(md.size()) + "-byte MAC");
  }
  for (std::size_t len : {std::size_t{1}, std::size_t{10}, std::size_t{12}, md.size() - 1}) {
    if (len <= md.size() && !hmac.verify(msg, std::span(md).first(len))) {
      log.fail(where, "verify rejects the MAC truncated to " + std::to_string(len) + " bytes");
    }
  }
  for (std::size_t bit : {std::size_t{0}, md.size() * 8 - 1}) {
    if (hmac.verify(msg, flipped(md, bit))) {
      log.fail(where, "verify accepts the MAC with bit " + std::to_string(bit) + " flipped");
    }
  }
  if (hmac.verify(msg, {})) {
    log.fail(where, "verify accepts an empty tag");
  }
  if (md.size() == hmac.digest_len()) {
    Bytes longer = md;
    longer.push_back(0);
    if (hmac.verify(msg, longer)) {
      log.fail(where, "verify accepts a tag longer than the digest");
    }
    Bytes too_long(hmac.digest_len() + 1);
    if (hmac.compute(msg, too_long)) {
      log.fail(where, "compute accepts an output longer than the digest");
    }
  }
}

// check_hmac checks compute, Stream, and verify of `md` (a full or truncated MAC) on every
// backend that must serve HMAC with `hash` here.
void check_hmac(HashAlgorithm hash, const Bytes& key, const Bytes& msg, const Bytes& md,
                const std::string& where_in_file, FailureLog& log) {
  for (Backend backend : expected_backends(crypto::hmac_primitive(hash))) {
    const std::string where = where_in_file + " [" + std::string(crypto::to_string(backend)) + "]";
    check_hmac_on(hash, backend, key, msg, md, where, log);
  }
}

TEST(HmacVectors, Rfc2202AndRfc4231MatchIncludingTruncatedVerify) {
  FailureLog log;
  for (const HmacFile& f : kHmacFiles) {
    std::size_t count = 0;
    for (const VectorRecord& r : read_vectors_or_fail(cavp_dir() / "HMAC" / f.name)) {
      if (!r.has("Len")) {
        continue;
      }
      ++count;
      const Bytes msg = r.hex("Msg");
      const Bytes md = r.hex("MD");
      EXPECT_EQ(msg.size() * 8, std::stoul(r.get("Len"))) << where_of(f.name, r);
      EXPECT_EQ(md.size(), crypto::digest_length(f.hash)) << where_of(f.name, r);
      check_hmac(f.hash, r.hex("Key"), msg, md, where_of(f.name, r), log);
    }
    EXPECT_EQ(count, f.records) << f.name;
    report(std::string("HMAC ") + f.name,
           std::to_string(count) + " vectors run on " +
               backend_names(expected_backends(crypto::hmac_primitive(f.hash))));
  }
  EXPECT_EQ(log.count(), 0);
  report("HMAC rfc-2202-md5.txt, rfc-2286-ripemd160.txt",
         "not applicable (wireseal offers SHA-1 and SHA-2 only)");
}

TEST(HmacVectors, RfcTruncatedOutputsMatch) {
  FailureLog log;
  std::size_t count = 0;
  for (const VectorRecord& r : read_vectors_or_fail(vectors_dir() / "hmac_truncated.txt")) {
    const std::string& name = r.get("Hash");
    HashAlgorithm hash = HashAlgorithm::kSha1;
    bool found = false;
    for (HashAlgorithm h : {HashAlgorithm::kSha1, HashAlgorithm::kSha224, HashAlgorithm::kSha256,
                            HashAlgorithm::kSha384, HashAlgorithm::kSha512}) {
      if (name == crypto::to_string(h)) {
        hash = h;
        found = true;
      }
    }
    ASSERT_TRUE(found) << "unknown hash " << name;
    const Bytes md = r.hex("MD");
    EXPECT_LT(md.size(), crypto::digest_length(hash));
    check_hmac(hash, r.hex("Key"), r.hex("Msg"), md, where_of("hmac_truncated.txt", r), log);
    ++count;
  }
  EXPECT_EQ(count, 5u);
  EXPECT_EQ(log.count(), 0);
}

// --- AES-GMAC from the GCM CAVP files: records with IVlen = 96 and PTlen = 0 are GMAC over the
// AAD. AesGmac verifies tags of 1..16 bytes, so every Taglen (32..128 bits) applies.
struct GmacFile {
  const char* name;
  std::size_t applicable;  // records with IVlen = 96 and PTlen = 0
};

TEST(AesGmacVectors, GcmRecordsWithEmptyPlaintextMatchOnEveryBackend) {
  const std::vector<Backend> backends = expected_backends(Primitive::kAesGcm);
  ASSERT_FALSE(backends.empty());
  FailureLog log;
  const GmacFile files[] = {{"gcmEncryptExtIV128.rsp", 525},
                            {"gcmEncryptExtIV256.rsp", 525},
                            {"gcmDecrypt128.rsp", 525},
                            {"gcmDecrypt256.rsp", 525}};
  for (const GmacFile& f : files) {
    std::size_t run = 0;
    std::size_t must_fail = 0;
    std::size_t other = 0;
    for (const VectorRecord& r : read_vectors_or_fail(cavp_dir() / "ciphers/AES/GCM" / f.name)) {
      if (!r.has("Count")) {
        continue;
      }
      if (r.section.at("IVlen") != "96" || r.section.at("PTlen") != "0") {
        ++other;
        continue;
      }
      ++run;
      const std::string where = where_of(f.name, r);
      const Bytes key = r.hex("Key");
      const Bytes iv = r.hex("IV");
      const Bytes aad = r.hex("AAD");
      const Bytes tag = r.hex("Tag");
      const bool fail = r.has("FAIL");
      must_fail += fail ? 1u : 0u;
      EXPECT_TRUE(r.hex("CT").empty()) << where;
      const std::span<const std::uint8_t, 12> nonce(iv.data(), 12);
      for (Backend b : backends) {
        const std::string at = where + " [" + std::string(crypto::to_string(b)) + "]";
        AesGmac gmac(key, b);
        if (gmac.verify(nonce, aad, tag) == fail) {
          log.fail(at, std::string("verify ") + (fail ? "accepts a FAIL tag" : "rejects the tag"));
        }
        if (!fail) {
          Bytes out(tag.size());
          if (Status s = gmac.compute(nonce, aad, out); !s || out != tag) {
            log.fail(at, "compute gave " + to_hex(out) + ", want " + to_hex(tag));
          }
          if (gmac.verify(nonce, aad, flipped(tag, 0))) {
            log.fail(at, "verify accepts a flipped tag");
          }
        }
      }
    }
    EXPECT_EQ(run, f.applicable) << f.name;
    if (std::string(f.name).find("Decrypt") != std::string::npos) {
      EXPECT_GT(must_fail, 0u) << f.name;
    }
    report(std::string("AES-GMAC ") + f.name,
           std::to_string(run) + " vectors run (" + std::to_string(must_fail) + " must fail), " +
               std::to_string(other) +
               " other records (not 96-bit-IV GMAC: IVlen != 96 or PTlen != 0), on " +
               backend_names(backends));
  }
  EXPECT_EQ(log.count(), 0);
  report("AES-GMAC gcm*192.rsp", "not applicable (AesGmac takes 128- and 256-bit keys)");
}

}  // namespace
}  // namespace wireseal::test
