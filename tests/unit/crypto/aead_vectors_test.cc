// Known-answer tests for every AEAD: NIST CAVP AES-GCM and AES-CCM, the OpenSSL and BoringSSL
// ChaCha20-Poly1305 files (all from python3-cryptography-vectors, read in place) and RFC
// examples in tests/vectors/aead_rfc.txt. Every vector runs on every backend available for its
// primitive: seal and open, in place and out of place; vectors marked as failing must make
// open() return kAuthFailed with the output zeroed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "crypto_test_util.h"
#include "support/hex.h"
#include "support/vector_file.h"
#include "wireseal/crypto/aead.h"
#include "wireseal/result.h"

namespace wireseal::test {
namespace {

using crypto::Aead;
using crypto::AeadAlgorithm;
using crypto::AeadOptions;
using crypto::Backend;
using crypto::Primitive;

struct AeadVector {
  AeadAlgorithm algorithm;
  Bytes key, nonce, aad, plaintext, ciphertext, tag;
  bool must_fail = false;  // open() must reject it; the plaintext is unknown, so no seal
  std::string origin;      // "file:line", for failure messages
};

// What one file contributed: vectors run, records that wireseal cannot express.
struct FileResult {
  std::vector<AeadVector> vectors;
  int records = 0;
  int not_applicable = 0;
};

std::string origin(const std::string& file, const VectorRecord& r) {
  return file + ":" + std::to_string(r.line);
}

bool all_zero(const Bytes& b) {
  return std::all_of(b.begin(), b.end(), [](std::uint8_t x) { return x == 0; });
}

std::string status_name(const Status& s) { return s ? "ok" : to_string(s.error()); }

// check_on_backend seals and opens `v` with `backend`, in place and out of place.
void check_on_backend(const AeadVector& v, Backend backend, FailureLog& log) {
  const std::string where = v.origin + " [" + std::string(crypto::to_string(backend)) + "]";
  std::unique_ptr<Aead> aead;
  try {
    aead = std::make_unique<Aead>(
        v.algorithm, v.key,
        AeadOptions{.tag_len = v.tag.size(), .nonce_len = v.nonce.size(), .backend = backend});
  } catch (const std::exception& e) {
    log.fail(where, std::string("constructor threw: ") + e.what());
    return;
  }
  const std::size_t n = v.ciphertext.size();
  if (!v.must_fail) {
    Bytes out(n, 0xa5);
    Bytes tag(v.tag.size(), 0);
    Status s = aead->seal(v.nonce, v.aad, v.plaintext, out, tag);
    if (!s || out != v.ciphertext || tag != v.tag) {
      log.fail(where, "seal (out of place) " + status_name(s) + ": ct " + to_hex(out) + " tag " +
                          to_hex(tag) + ", want ct " + to_hex(v.ciphertext) + " tag " +
                          to_hex(v.tag));
    }
    Bytes buf = v.plaintext;
    std::fill(tag.begin(), tag.end(), std::uint8_t{0});
    s = aead->seal(v.nonce, v.aad, buf, buf, tag);
    if (!s || buf != v.ciphertext || tag != v.tag) {
      log.fail(where,
               "seal (in place) " + status_name(s) + ": ct " + to_hex(buf) + " tag " + to_hex(tag));
    }
    std::fill(out.begin(), out.end(), std::uint8_t{0xa5});
    s = aead->open(v.nonce, v.aad, v.ciphertext, out, v.tag);
    if (!s || out != v.plaintext) {
      log.fail(where, "open (out of place) " + status_name(s) + ": pt " + to_hex(out));
    }
    buf = v.ciphertext;
    s = aead->open(v.nonce, v.aad, buf, buf, v.tag);
    if (!s || buf != v.plaintext) {
      log.fail(where, "open (in place) " + status_name(s) + ": pt " + to_hex(buf));
    }
    return;
  }
  Bytes out(n, 0xa5);
  Status s = aead->open(v.nonce, v.aad, v.ciphertext, out, v.tag);
  if (s || s.error() != Error::kAuthFailed || !all_zero(out)) {
    log.fail(where, "open of a FAIL vector (out of place) returned " + status_name(s) +
                        ", output " + to_hex(out));
  }
  Bytes buf = v.ciphertext;
  s = aead->open(v.nonce, v.aad, buf, buf, v.tag);
  if (s || s.error() != Error::kAuthFailed || !all_zero(buf)) {
    log.fail(where, "open of a FAIL vector (in place) returned " + status_name(s) + ", output " +
                        to_hex(buf));
  }
}

// check_batch_on_backend runs `group` (vectors sharing key, nonce and tag length) through
// seal_batch (the vectors with a known plaintext) and open_batch (all of them) on `backend`:
// each job must get the answer a single call gets.
void check_batch_on_backend(const std::vector<const AeadVector*>& group, Backend backend,
                            FailureLog& log) {
  const AeadVector& first = *group.front();
  const std::string where = first.origin + " batch of " + std::to_string(group.size()) + " [" +
                            std::string(crypto::to_string(backend)) + "]";
  Aead aead(first.algorithm, first.key,
            AeadOptions{
                .tag_len = first.tag.size(), .nonce_len = first.nonce.size(), .backend = backend});
  std::vector<Bytes> outs;
  std::vector<Bytes> tags;
  outs.reserve(group.size());
  tags.reserve(group.size());
  std::vector<crypto::SealJob> seal_jobs;
  std::vector<const AeadVector*> sealed;
  for (const AeadVector* v : group) {
    if (v->must_fail) {
      continue;
    }
    outs.emplace_back(v->plaintext.size(), 0xa5);
    tags.emplace_back(v->tag.size(), 0);
    seal_jobs.push_back({v->nonce, v->aad, v->plaintext, outs.back(), tags.back(), {}});
    sealed.push_back(v);
  }
  aead.seal_batch(seal_jobs);
  for (std::size_t i = 0; i < sealed.size(); ++i) {
    if (!seal_jobs[i].status || outs[i] != sealed[i]->ciphertext || tags[i] != sealed[i]->tag) {
      log.fail(where, sealed[i]->origin + ": seal_batch " + status_name(seal_jobs[i].status) +
                          ": ct " + to_hex(outs[i]) + " tag " + to_hex(tags[i]));
    }
  }
  outs.clear();
  std::vector<crypto::OpenJob> open_jobs;
  for (const AeadVector* v : group) {
    outs.emplace_back(v->ciphertext.size(), 0xa5);
    open_jobs.push_back({v->nonce, v->aad, v->ciphertext, outs.back(), v->tag, {}});
  }
  aead.open_batch(open_jobs);
  for (std::size_t i = 0; i < group.size(); ++i) {
    const AeadVector& v = *group[i];
    const Status& s = open_jobs[i].status;
    const bool good = v.must_fail ? (!s && s.error() == Error::kAuthFailed && all_zero(outs[i]))
                                  : (s && outs[i] == v.plaintext);
    if (!good) {
      log.fail(where, v.origin + ": open_batch " + status_name(s) + " (must " +
                          (v.must_fail ? "fail" : "pass") + "), output " + to_hex(outs[i]));
    }
  }
}

// batch_groups splits vectors into runs of at most 11 (more than one 8-lane group) sharing
// algorithm, key, nonce length and tag length.
std::vector<std::vector<const AeadVector*>> batch_groups(const std::vector<AeadVector>& vectors) {
  constexpr std::size_t kMaxGroup = 11;
  std::vector<std::vector<const AeadVector*>> groups;
  for (const AeadVector& v : vectors) {
    if (!groups.empty()) {
      const AeadVector& head = *groups.back().front();
      if (groups.back().size() < kMaxGroup && head.algorithm == v.algorithm && head.key == v.key &&
          head.nonce.size() == v.nonce.size() && head.tag.size() == v.tag.size()) {
        groups.back().push_back(&v);
        continue;
      }
    }
    groups.push_back({&v});
  }
  return groups;
}

// run_everywhere runs every vector on every available backend, one call at a time and through
// the batch entry points, and reports the counts.
void run_everywhere(const std::string& name, const FileResult& file, int expected_records) {
  ASSERT_GT(file.records, 0) << name << ": no records parsed";
  if (expected_records > 0) {
    EXPECT_EQ(file.records, expected_records) << name << ": record count changed";
  }
  ASSERT_FALSE(file.vectors.empty()) << name << ": no applicable vectors";
  FailureLog log;
  std::set<Backend> used;
  int must_fail = 0;
  for (const AeadVector& v : file.vectors) {
    const std::vector<Backend> backends = expected_backends(crypto::primitive_of(v.algorithm));
    for (Backend b : backends) {
      check_on_backend(v, b, log);
      used.insert(b);
    }
    must_fail += v.must_fail ? 1 : 0;
  }
  std::size_t batches = 0;
  for (const auto& group : batch_groups(file.vectors)) {
    for (Backend b : expected_backends(crypto::primitive_of(group.front()->algorithm))) {
      check_batch_on_backend(group, b, log);
    }
    ++batches;
  }
  EXPECT_EQ(log.count(), 0) << name << ": " << log.count() << " failed checks (first "
                            << FailureLog::kMaxReported << " shown)";
  report(name, std::to_string(file.vectors.size()) + " vectors run (" + std::to_string(must_fail) +
                   " must fail), " + std::to_string(file.not_applicable) + " not applicable, " +
                   std::to_string(batches) + " batches, on " + std::to_string(used.size()) +
                   " backends (" + backend_names(std::vector<Backend>(used.begin(), used.end())) +
                   ")");
}

int int_field(const std::map<std::string, std::string>& m, const std::string& key,
              const std::string& where) {
  auto it = m.find(key);
  if (it == m.end()) {
    throw std::out_of_range(where + ": no parameter " + key);
  }
  return std::stoi(it->second);
}

// --- NIST CAVP GCM (.rsp): [Keylen] [IVlen] [PTlen] [AADlen] [Taglen] sections (bits), records
// Count/Key/IV/PT/AAD/CT/Tag; decrypt files replace PT by a bare FAIL line when the tag is bad.
// wireseal's GCM takes 12-byte nonces and 12..16-byte tags only.
FileResult load_gcm_cavp(const std::string& file, AeadAlgorithm algorithm) {
  FileResult result;
  const auto records = read_vectors_or_fail(cavp_dir() / "ciphers/AES/GCM" / file);
  for (const VectorRecord& r : records) {
    if (!r.has("Count")) {
      continue;
    }
    ++result.records;
    const std::string where = origin(file, r);
    const int iv_bits = int_field(r.section, "IVlen", where);
    const int tag_bits = int_field(r.section, "Taglen", where);
    if (iv_bits != 96 || tag_bits < 96 || tag_bits > 128) {
      ++result.not_applicable;
      continue;
    }
    AeadVector v{.algorithm = algorithm,
                 .key = r.hex("Key"),
                 .nonce = r.hex("IV"),
                 .aad = r.hex("AAD"),
                 .plaintext = r.has("FAIL") ? Bytes{} : r.hex("PT"),
                 .ciphertext = r.hex("CT"),
                 .tag = r.hex("Tag"),
                 .must_fail = r.has("FAIL"),
                 .origin = where};
    // Guard the parser: lengths must agree with the section header.
    EXPECT_EQ(v.nonce.size() * 8, 96u) << where;
    EXPECT_EQ(v.tag.size() * 8, static_cast<std::size_t>(tag_bits)) << where;
    EXPECT_EQ(v.ciphertext.size() * 8,
              static_cast<std::size_t>(int_field(r.section, "PTlen", where)))
        << where;
    EXPECT_EQ(v.aad.size() * 8, static_cast<std::size_t>(int_field(r.section, "AADlen", where)))
        << where;
    if (!v.must_fail) {
      EXPECT_EQ(v.plaintext.size(), v.ciphertext.size()) << where;
    }
    result.vectors.push_back(std::move(v));
  }
  return result;
}

struct GcmFile {
  const char* name;
  AeadAlgorithm algorithm;
};
constexpr GcmFile kGcmEncryptFiles[] = {
    {"gcmEncryptExtIV128.rsp", AeadAlgorithm::kAes128Gcm},
    {"gcmEncryptExtIV192.rsp", AeadAlgorithm::kAes192Gcm},
    {"gcmEncryptExtIV256.rsp", AeadAlgorithm::kAes256Gcm},
};
constexpr GcmFile kGcmDecryptFiles[] = {
    {"gcmDecrypt128.rsp", AeadAlgorithm::kAes128Gcm},
    {"gcmDecrypt192.rsp", AeadAlgorithm::kAes192Gcm},
    {"gcmDecrypt256.rsp", AeadAlgorithm::kAes256Gcm},
};
// Each GCM file has 7875 records; 1875 of them have IVlen = 96 and Taglen 96..128.
constexpr int kGcmRecordsPerFile = 7875;
constexpr std::size_t kGcmApplicablePerFile = 1875;

TEST(AesGcmCavp, EncryptVectorsMatchOnEveryBackend) {
  for (const GcmFile& f : kGcmEncryptFiles) {
    const FileResult file = load_gcm_cavp(f.name, f.algorithm);
    EXPECT_EQ(file.vectors.size(), kGcmApplicablePerFile) << f.name;
    run_everywhere(std::string("AES-GCM ") + f.name, file, kGcmRecordsPerFile);
  }
}

TEST(AesGcmCavp, DecryptVectorsOpenOrRejectOnEveryBackend) {
  for (const GcmFile& f : kGcmDecryptFiles) {
    const FileResult file = load_gcm_cavp(f.name, f.algorithm);
    EXPECT_EQ(file.vectors.size(), kGcmApplicablePerFile) << f.name;
    const auto fails = std::count_if(file.vectors.begin(), file.vectors.end(),
                                     [](const AeadVector& v) { return v.must_fail; });
    EXPECT_GT(fails, 0) << f.name << ": no FAIL records parsed";
    EXPECT_LT(static_cast<std::size_t>(fails), file.vectors.size()) << f.name;
    run_everywhere(std::string("AES-GCM ") + f.name, file, kGcmRecordsPerFile);
  }
}

// --- NIST CAVP CCM (.rsp). Parameters (Alen, Plen, Nlen, Tlen, in bytes) come from a leading
// record without Count, from [..] lines (DVPT puts all four in one comma-separated line), and
// Key / Nonce from records without Count that apply until replaced. Adata and Payload are "00"
// when their length is 0. CT is ciphertext || tag. DVPT records carry Result = Pass / Fail.

// expand_section turns {"Alen": "0, Plen = 0, Nlen = 7"} into {Alen: 0, Plen: 0, Nlen: 7}.
std::map<std::string, std::string> expand_section(const std::map<std::string, std::string>& s) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : s) {
    std::string rest = key + " = " + value;
    std::size_t start = 0;
    while (start <= rest.size()) {
      const std::size_t comma = std::min(rest.find(',', start), rest.size());
      const std::string item = rest.substr(start, comma - start);
      const std::size_t eq = item.find('=');
      if (eq != std::string::npos) {
        auto trim = [](std::string t) {
          t.erase(0, t.find_first_not_of(' '));
          t.erase(t.find_last_not_of(' ') + 1);
          return t;
        };
        out[trim(item.substr(0, eq))] = trim(item.substr(eq + 1));
      }
      start = comma + 1;
    }
  }
  return out;
}

FileResult load_ccm_cavp(const std::string& file, AeadAlgorithm algorithm) {
  FileResult result;
  const auto records = read_vectors_or_fail(cavp_dir() / "ciphers/AES/CCM" / file);
  std::map<std::string, std::string> carry;  // file parameters, Key, Nonce
  for (const VectorRecord& r : records) {
    if (!r.has("Count")) {
      for (const auto& [k, v] : r.fields) {
        carry[k] = v;
      }
      continue;
    }
    ++result.records;
    const std::string where = origin(file, r);
    std::map<std::string, std::string> params = carry;
    for (const auto& [k, v] : expand_section(r.section)) {
      params[k] = v;
    }
    for (const auto& [k, v] : r.fields) {
      params[k] = v;
    }
    const auto alen = static_cast<std::size_t>(int_field(params, "Alen", where));
    const auto plen = static_cast<std::size_t>(int_field(params, "Plen", where));
    const auto nlen = static_cast<std::size_t>(int_field(params, "Nlen", where));
    const auto tlen = static_cast<std::size_t>(int_field(params, "Tlen", where));
    const Bytes ct_and_tag = from_hex(params.at("CT"));
    Bytes aad = from_hex(params.at("Adata"));
    const bool must_fail = r.has("Result") && r.get("Result").rfind("Fail", 0) == 0;
    Bytes payload = must_fail ? Bytes{} : from_hex(params.at("Payload"));
    if (alen == 0) {
      EXPECT_EQ(to_hex(aad), "00") << where;
      aad.clear();
    }
    if (plen == 0 && !must_fail) {
      EXPECT_EQ(to_hex(payload), "00") << where;
      payload.clear();
    }
    AeadVector v{
        .algorithm = algorithm,
        .key = from_hex(params.at("Key")),
        .nonce = from_hex(params.at("Nonce")),
        .aad = aad,
        .plaintext = payload,
        .ciphertext = Bytes(
            ct_and_tag.begin(),
            ct_and_tag.end() - static_cast<std::ptrdiff_t>(std::min(tlen, ct_and_tag.size()))),
        .tag =
            Bytes(ct_and_tag.end() - static_cast<std::ptrdiff_t>(std::min(tlen, ct_and_tag.size())),
                  ct_and_tag.end()),
        .must_fail = must_fail,
        .origin = where};
    EXPECT_EQ(v.key.size(), crypto::info(algorithm).key_len) << where;
    EXPECT_EQ(v.nonce.size(), nlen) << where;
    EXPECT_EQ(v.aad.size(), alen) << where;
    EXPECT_EQ(ct_and_tag.size(), plen + tlen) << where;
    if (!must_fail) {
      EXPECT_EQ(v.plaintext.size(), plen) << where;
    }
    if (r.has("Result")) {
      EXPECT_TRUE(must_fail || r.get("Result") == "Pass") << where << ": " << r.get("Result");
    }
    result.vectors.push_back(std::move(v));
  }
  return result;
}

struct CcmFile {
  const char* prefix;
  int records;  // per key size
};
constexpr CcmFile kCcmGenerationFiles[] = {{"VADT", 330}, {"VNT", 70}, {"VPT", 250}, {"VTT", 70}};
constexpr CcmFile kCcmDecryptionFile = {"DVPT", 240};

struct CcmKeySize {
  const char* suffix;
  AeadAlgorithm algorithm;
};
constexpr CcmKeySize kCcmKeySizes[] = {{"128", AeadAlgorithm::kAes128Ccm},
                                       {"192", AeadAlgorithm::kAes192Ccm},
                                       {"256", AeadAlgorithm::kAes256Ccm}};

TEST(AesCcmCavp, GenerationVectorsMatchOnEveryBackend) {
  for (const CcmFile& f : kCcmGenerationFiles) {
    for (const CcmKeySize& k : kCcmKeySizes) {
      const std::string name = std::string(f.prefix) + k.suffix + ".rsp";
      const FileResult file = load_ccm_cavp(name, k.algorithm);
      EXPECT_EQ(file.not_applicable, 0);
      run_everywhere("AES-CCM " + name, file, f.records);
    }
  }
}

TEST(AesCcmCavp, DecryptionVerificationVectorsOnEveryBackend) {
  for (const CcmKeySize& k : kCcmKeySizes) {
    const std::string name = std::string(kCcmDecryptionFile.prefix) + k.suffix + ".rsp";
    const FileResult file = load_ccm_cavp(name, k.algorithm);
    const auto fails = std::count_if(file.vectors.begin(), file.vectors.end(),
                                     [](const AeadVector& v) { return v.must_fail; });
    EXPECT_GT(fails, 0) << name << ": no Fail records parsed";
    EXPECT_LT(static_cast<std::size_t>(fails), file.vectors.size()) << name;
    run_everywhere("AES-CCM " + name, file, kCcmDecryptionFile.records);
  }
}

// --- ChaCha20-Poly1305. OpenSSL's evpciph format: COUNT/Key/IV/AAD/Tag/Plaintext/Ciphertext,
// with "Result = CIPHERFINAL_ERROR" on records whose tag must not verify.
FileResult load_openssl_chacha(const std::string& file) {
  FileResult result;
  for (const VectorRecord& r :
       read_vectors_or_fail(cavp_dir() / "ciphers/ChaCha20Poly1305" / file)) {
    if (!r.has("COUNT")) {
      continue;
    }
    ++result.records;
    AeadVector v{.algorithm = AeadAlgorithm::kChaCha20Poly1305,
                 .key = r.hex("Key"),
                 .nonce = r.hex("IV"),
                 .aad = r.hex("AAD"),
                 .plaintext = r.hex("Plaintext"),
                 .ciphertext = r.hex("Ciphertext"),
                 .tag = r.hex("Tag"),
                 .must_fail = r.has("Result"),
                 .origin = origin(file, r)};
    EXPECT_EQ(v.plaintext.size(), v.ciphertext.size()) << v.origin;
    if (v.nonce.size() != 12 || v.tag.size() != 16) {
      ++result.not_applicable;
      continue;
    }
    result.vectors.push_back(std::move(v));
  }
  return result;
}

// BoringSSL's AEAD format as shipped by python3-cryptography-vectors and used by
// tests/vectors/aead_rfc.txt: KEY/NONCE/IN/AD/CT/TAG (hex or "quoted"), optional ALG, and a
// FAILS line or Result field on records that must not open.
FileResult load_boringssl_aead(const std::filesystem::path& path, AeadAlgorithm default_alg) {
  FileResult result;
  const std::string file = path.filename().string();
  for (const VectorRecord& r : read_vectors_or_fail(path)) {
    if (!r.has("KEY")) {
      continue;
    }
    ++result.records;
    AeadAlgorithm algorithm = default_alg;
    if (r.has("ALG")) {
      const std::string& alg = r.get("ALG");
      bool found = false;
      for (auto a :
           {AeadAlgorithm::kAes128Gcm, AeadAlgorithm::kAes192Gcm, AeadAlgorithm::kAes256Gcm,
            AeadAlgorithm::kAes128Ccm, AeadAlgorithm::kAes192Ccm, AeadAlgorithm::kAes256Ccm,
            AeadAlgorithm::kChaCha20Poly1305}) {
        std::string upper = crypto::to_string(a);
        std::transform(upper.begin(), upper.end(), upper.begin(),
                       [](char c) { return static_cast<char>(std::toupper(c)); });
        if (upper == alg) {
          algorithm = a;
          found = true;
        }
      }
      EXPECT_TRUE(found) << origin(file, r) << ": unknown ALG " << alg;
    }
    const bool must_fail = r.has("FAILS") || r.has("Result");
    AeadVector v{.algorithm = algorithm,
                 .key = decode_value(r.get("KEY")),
                 .nonce = decode_value(r.get("NONCE")),
                 .aad = decode_value(r.get("AD")),
                 .plaintext = decode_value(r.get("IN")),
                 .ciphertext = decode_value(r.get("CT")),
                 .tag = decode_value(r.get("TAG")),
                 .must_fail = must_fail,
                 .origin = origin(file, r)};
    EXPECT_EQ(v.plaintext.size(), v.ciphertext.size()) << v.origin;
    result.vectors.push_back(std::move(v));
  }
  return result;
}

TEST(ChaCha20Poly1305Vectors, OpenSslFileMatchesOnEveryBackend) {
  const FileResult file = load_openssl_chacha("openssl.txt");
  const auto fails = std::count_if(file.vectors.begin(), file.vectors.end(),
                                   [](const AeadVector& v) { return v.must_fail; });
  EXPECT_EQ(fails, 1) << "openssl.txt has one CIPHERFINAL_ERROR record";
  run_everywhere("ChaCha20-Poly1305 openssl.txt", file, 5);
}

TEST(ChaCha20Poly1305Vectors, BoringSslFileMatchesOnEveryBackend) {
  const FileResult file = load_boringssl_aead(cavp_dir() / "ciphers/ChaCha20Poly1305/boringssl.txt",
                                              AeadAlgorithm::kChaCha20Poly1305);
  run_everywhere("ChaCha20-Poly1305 boringssl.txt", file, 66);
}

// RFC 8439 section 2.8.2 and RFC 3610 packet vectors #1 to #4, transcribed into the repository.
TEST(RfcAeadExamples, MatchOnEveryBackend) {
  const FileResult file =
      load_boringssl_aead(vectors_dir() / "aead_rfc.txt", AeadAlgorithm::kChaCha20Poly1305);
  const auto ccm = std::count_if(file.vectors.begin(), file.vectors.end(), [](const AeadVector& v) {
    return v.algorithm == AeadAlgorithm::kAes128Ccm && v.tag.size() == 8 && v.nonce.size() == 13;
  });
  EXPECT_EQ(ccm, 4);
  run_everywhere("RFC examples aead_rfc.txt", file, 5);
}

// The batch entry points must give the same answers as single calls: run the RFC examples of
// one key through seal_batch / open_batch on every backend.
TEST(RfcAeadExamples, BatchCallsMatchSingleCalls) {
  const FileResult file =
      load_boringssl_aead(vectors_dir() / "aead_rfc.txt", AeadAlgorithm::kChaCha20Poly1305);
  std::vector<const AeadVector*> ccm;
  for (const AeadVector& v : file.vectors) {
    if (v.algorithm == AeadAlgorithm::kAes128Ccm) {
      ccm.push_back(&v);
    }
  }
  ASSERT_EQ(ccm.size(), 4u);
  for (Backend b : expected_backends(Primitive::kAesCcm)) {
    SCOPED_TRACE(std::string(crypto::to_string(b)));
    Aead aead(AeadAlgorithm::kAes128Ccm, ccm[0]->key,
              AeadOptions{.tag_len = 8, .nonce_len = 13, .backend = b});
    std::vector<Bytes> cts, tags, pts;
    for (const AeadVector* v : ccm) {
      cts.emplace_back(v->plaintext.size());
      tags.emplace_back(8);
      pts.emplace_back(v->plaintext.size());
    }
    std::vector<crypto::SealJob> seal_jobs;
    std::vector<crypto::OpenJob> open_jobs;
    for (std::size_t i = 0; i < ccm.size(); ++i) {
      seal_jobs.push_back({ccm[i]->nonce, ccm[i]->aad, ccm[i]->plaintext, cts[i], tags[i], {}});
    }
    aead.seal_batch(seal_jobs);
    for (std::size_t i = 0; i < ccm.size(); ++i) {
      EXPECT_TRUE(seal_jobs[i].status) << ccm[i]->origin;
      EXPECT_EQ(to_hex(cts[i]), to_hex(ccm[i]->ciphertext)) << ccm[i]->origin;
      EXPECT_EQ(to_hex(tags[i]), to_hex(ccm[i]->tag)) << ccm[i]->origin;
      open_jobs.push_back(
          {ccm[i]->nonce, ccm[i]->aad, ccm[i]->ciphertext, pts[i], ccm[i]->tag, {}});
    }
    Bytes bad_tag = ccm[1]->tag;
    bad_tag[0] ^= 1;
    open_jobs[1].tag = bad_tag;
    aead.open_batch(open_jobs);
    for (std::size_t i = 0; i < ccm.size(); ++i) {
      if (i == 1) {
        EXPECT_FALSE(open_jobs[i].status);
        EXPECT_EQ(open_jobs[i].status.error(), Error::kAuthFailed);
        EXPECT_TRUE(all_zero(pts[i]));
      } else {
        EXPECT_TRUE(open_jobs[i].status) << ccm[i]->origin;
        EXPECT_EQ(to_hex(pts[i]), to_hex(ccm[i]->plaintext)) << ccm[i]->origin;
      }
    }
  }
}

}  // namespace
}  // namespace wireseal::test
