// Zero-allocation test of the DTLS record paths: once a RecordSealer and RecordOpener exist,
// seal (in place and from a separate buffer), seal_batch, and open of good, tampered and
// replayed records make no heap allocation, for every record cipher, MAC-then-encrypt and
// encrypt-then-MAC for the CBC suites, with and without a connection ID, on every crypto
// backend that serves the cipher. CBC sealers use their default IV source (the per-sealer
// AES-CTR generator), as connections do. Links tests/support/alloc_counter.cc.
//
// Nothing inside the measured loop may allocate, gtest included: outcomes are counted in plain
// variables and asserted after the scope closes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dtls_test_util.h"
#include "support/alloc_counter.h"
#include "unit/crypto/crypto_test_util.h"
#include "wireseal/dtls/hello_verifier.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::test {
namespace {

using crypto::Backend;
using dtls::CipherKind;
using dtls::ContentType;
using dtls::RecordCipher;

constexpr int kIterations = 200;
constexpr std::size_t kSizes[] = {1, 16, 1400};
constexpr std::size_t kBatch = 8;  // one full group of seal_batch's multi-buffer path
constexpr std::size_t kRecordCapacity = 1600;

struct Case {
  RecordCipher cipher;
  bool etm;
  std::size_t cid_len;
  Backend backend;
};

// backends_for lists the backends to force for `cipher`: those of the primitive behind its
// bulk cipher. NULL ciphers have none (HMAC has a single implementation), so they run once.
std::vector<Backend> backends_for(RecordCipher cipher) {
  switch (cipher) {
    case RecordCipher::kAes128Gcm:
    case RecordCipher::kAes256Gcm:
      return expected_backends(crypto::Primitive::kAesGcm);
    case RecordCipher::kAes128Ccm:
    case RecordCipher::kAes128Ccm8:
    case RecordCipher::kAes256Ccm:
    case RecordCipher::kAes256Ccm8:
      return expected_backends(crypto::Primitive::kAesCcm);
    case RecordCipher::kChaCha20Poly1305:
      return expected_backends(crypto::Primitive::kChaCha20Poly1305);
    case RecordCipher::kNullSha1:
    case RecordCipher::kNullSha256:
      return {Backend::kAuto};
    default:
      return expected_backends(crypto::Primitive::kAesCbc);
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (RecordCipher cipher : kAllRecordCiphers) {
    const bool cbc = dtls::info(cipher).kind == CipherKind::kCbc;
    for (Backend backend : backends_for(cipher)) {
      for (std::size_t cid_len : {std::size_t{0}, std::size_t{5}}) {
        cases.push_back({cipher, false, cid_len, backend});
        if (cbc) {
          cases.push_back({cipher, true, cid_len, backend});
        }
      }
    }
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& p) {
  std::string name = dtls::info(p.param.cipher).name;
  name += p.param.etm ? "_EtM" : "";
  name += p.param.cid_len != 0 ? "_CID" : "";
  name += '_';
  name += crypto::to_string(p.param.backend);
  return identifier(name);
}

Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<std::uint8_t>(seed + 13 * i);
  }
  return b;
}

// Failures counts what went wrong inside the measured loop, by path.
struct Failures {
  int seal = 0;
  int open = 0;
  int tampered_accepted = 0;
  int replay_accepted = 0;
  int batch = 0;
};

// RecordPaths owns one sealer/opener pair and every buffer the loop needs, allocated up
// front, and runs each record path once per round.
class RecordPaths {
 public:
  RecordPaths(const Case& c, std::size_t size)
      : key_block_(*dtls::KeyBlock::from_bytes(
            c.cipher,
            pattern(dtls::KeyBlock::size(c.cipher), static_cast<std::uint8_t>(c.cid_len)))),
        sealer_(c.cipher, key_block_.keys(dtls::Direction::kClientWrite), 1, sealer_options(c)),
        opener_(c.cipher, key_block_.keys(dtls::Direction::kClientWrite), 1, opener_options(c)),
        plaintext_(pattern(size, 7)),
        record_(kRecordCapacity),
        tampered_(kRecordCapacity),
        replayed_(kRecordCapacity),
        batch_plaintexts_(kBatch, plaintext_),
        batch_records_(kBatch, Bytes(kRecordCapacity)),
        batch_jobs_(kBatch) {}

  void round(Failures& failures) {
    seal_open_tamper_replay(seal_from_separate_buffer(), failures);
    seal_open_tamper_replay(seal_in_place(), failures);
    seal_and_open_batch(failures);
  }

 private:
  static dtls::ConnectionId cid(const Case& c) {
    const std::array<std::uint8_t, 5> bytes = {0xc1, 0xc2, 0xc3, 0xc4, 0xc5};
    return dtls::ConnectionId(std::span(bytes).first(c.cid_len));
  }
  static dtls::RecordSealerOptions sealer_options(const Case& c) {
    dtls::RecordSealerOptions o;
    o.encrypt_then_mac = c.etm;
    o.cid = cid(c);
    o.cid_padding = c.cid_len != 0 ? 3 : 0;
    o.backend = c.backend;
    return o;
  }
  static dtls::RecordOpenerOptions opener_options(const Case& c) {
    return {.encrypt_then_mac = c.etm, .cid = cid(c), .backend = c.backend};
  }

  Result<std::size_t> seal_from_separate_buffer() {
    return sealer_.seal(ContentType::kApplicationData, plaintext_, record_);
  }

  Result<std::size_t> seal_in_place() {
    std::uint8_t* payload = record_.data() + sealer_.payload_offset();
    std::copy(plaintext_.begin(), plaintext_.end(), payload);
    return sealer_.seal(ContentType::kApplicationData, {payload, plaintext_.size()}, record_);
  }

  // seal_open_tamper_replay opens a sealed record three ways: with its last byte flipped
  // (tag, MAC or padding: rejected, the window unchanged), as sealed (accepted), and again
  // from a copy (rejected as a replay).
  void seal_open_tamper_replay(Result<std::size_t> sealed, Failures& failures) {
    if (!sealed) {
      ++failures.seal;
      return;
    }
    const std::size_t len = *sealed;
    std::copy_n(record_.begin(), len, tampered_.begin());
    std::copy_n(record_.begin(), len, replayed_.begin());
    tampered_[len - 1] ^= 0x01;
    const auto forged = opener_.open({tampered_.data(), len});
    failures.tampered_accepted += forged || forged.error() != Error::kAuthFailed ? 1 : 0;
    const auto opened = opener_.open({record_.data(), len});
    failures.open += !opened || !std::equal(opened->plaintext.begin(), opened->plaintext.end(),
                                            plaintext_.begin(), plaintext_.end())
                         ? 1
                         : 0;
    const auto again = opener_.open({replayed_.data(), len});
    failures.replay_accepted += again || again.error() != Error::kReplay ? 1 : 0;
  }

  void seal_and_open_batch(Failures& failures) {
    for (std::size_t i = 0; i < kBatch; ++i) {
      batch_jobs_[i] = {
          ContentType::kApplicationData, batch_plaintexts_[i], batch_records_[i], {}, 0};
    }
    sealer_.seal_batch(batch_jobs_);
    for (std::size_t i = 0; i < kBatch; ++i) {
      const dtls::RecordSealer::Job& job = batch_jobs_[i];
      failures.batch +=
          !job.status || !opener_.open({batch_records_[i].data(), job.record_len}) ? 1 : 0;
    }
  }

  dtls::KeyBlock key_block_;
  dtls::RecordSealer sealer_;
  dtls::RecordOpener opener_;
  Bytes plaintext_;
  Bytes record_;
  Bytes tampered_;
  Bytes replayed_;
  std::vector<Bytes> batch_plaintexts_;
  std::vector<Bytes> batch_records_;
  std::vector<dtls::RecordSealer::Job> batch_jobs_;
};

class DtlsRecordAlloc : public ::testing::TestWithParam<Case> {};

INSTANTIATE_TEST_SUITE_P(EveryCipherAndBackend, DtlsRecordAlloc, ::testing::ValuesIn(all_cases()),
                         case_name);

TEST_P(DtlsRecordAlloc, RecordPathsDoNotAllocateAfterConstruction) {
  for (std::size_t size : kSizes) {
    AllocScope construction;
    RecordPaths paths(GetParam(), size);
    // The fixture's buffers are heap memory: seeing them proves the counter is live here.
    ASSERT_GT(construction.delta().count, 0u) << "the counting allocator is not linked";
    Failures warm_up;
    paths.round(warm_up);  // lazy state (OpenSSL's per-thread caches) may allocate once
    Failures failures;
    AllocScope scope;
    for (int i = 0; i < kIterations; ++i) {
      paths.round(failures);
    }
    const AllocStats delta = scope.delta();
    EXPECT_EQ(delta.count, 0u) << "size " << size << ": " << delta.bytes << " bytes in "
                               << delta.count << " allocations over " << kIterations << " rounds";
    EXPECT_EQ(warm_up.seal + failures.seal, 0) << "size " << size;
    EXPECT_EQ(warm_up.open + failures.open, 0) << "size " << size;
    EXPECT_EQ(warm_up.tampered_accepted + failures.tampered_accepted, 0) << "size " << size;
    EXPECT_EQ(warm_up.replay_accepted + failures.replay_accepted, 0) << "size " << size;
    EXPECT_EQ(warm_up.batch + failures.batch, 0) << "size " << size;
  }
}

// A flood of hellos without cookies creates no state: the HelloVerifier answers each from
// its secrets alone, allocating nothing (so it keeps nothing either), whatever arrives.
TEST(HelloVerifierAlloc, AFloodOfHellosAllocatesNothing) {
  std::array<std::uint8_t, dtls::HelloVerifier::kSecretSize> secret{};
  const dtls::HelloVerifier verifier(secret);
  // A minimal ClientHello in one record: version, random, empty session ID and cookie, one
  // suite, null compression.
  constexpr std::size_t kBody = 2 + 32 + 1 + 1 + 4 + 2;
  std::array<std::uint8_t, 13 + 12 + kBody> hello{};
  const std::array<std::uint8_t, 13> header{22, 0xfe, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12 + kBody};
  const std::array<std::uint8_t, 12> message{1, 0, 0, kBody, 0, 0, 0, 0, 0, 0, 0, kBody};
  std::copy(header.begin(), header.end(), hello.begin());
  std::copy(message.begin(), message.end(), hello.begin() + 13);
  std::uint8_t* body = hello.data() + 25;
  body[0] = 0xfe;
  body[1] = 0xfd;
  std::fill_n(body + 2, 32, std::uint8_t{0x33});
  const std::array<std::uint8_t, 8> rest{0, 0, 0, 2, 0xc0, 0x2b, 1, 0};
  std::copy(rest.begin(), rest.end(), body + 34);
  const std::array<std::uint8_t, 6> address{10, 0, 0, 1, 0, 80};
  std::array<std::uint8_t, dtls::HelloVerifier::kMaxReplySize> reply{};
  ASSERT_EQ(verifier.check(address, hello, reply).verdict, dtls::HelloVerifier::Verdict::kReply);
  int replies = 0;
  AllocScope scope;
  for (int i = 0; i < 1000; ++i) {
    hello[10] = static_cast<std::uint8_t>(i);  // each from its own record number
    replies += verifier.check(address, hello, reply).verdict == dtls::HelloVerifier::Verdict::kReply
                   ? 1
                   : 0;
  }
  const AllocStats allocated = scope.delta();
  EXPECT_EQ(replies, 1000);
  EXPECT_EQ(allocated.count, 0U);
}

}  // namespace
}  // namespace wireseal::test
