// Known-answer tests for DTLS 1.2 record protection: records of every cipher (with and without
// a connection ID, MAC-then-encrypt and encrypt-then-MAC) produced by an independent
// implementation (tests/vectors/gen/dtls_records.py: Python's cryptography and the RFC formats)
// must be reproduced byte for byte by RecordSealer and opened by RecordOpener; key blocks
// derived with an independent PRF must match KeyBlock::derive.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/hex.h"
#include "support/vector_file.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::dtls {
namespace {

using Bytes = std::vector<std::uint8_t>;

RecordCipher cipher_named(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(RecordCipher::kNullSha256); ++i) {
    const auto c = static_cast<RecordCipher>(i);
    if (name == info(c).name) {
      return c;
    }
  }
  throw std::invalid_argument("unknown cipher " + name);
}

// FixedIv hands out the generator's CBC IV (a0..af).
void fixed_iv(void* /*context*/, std::span<std::uint8_t> out) noexcept {
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::uint8_t>(0xa0 + i);
  }
}

TEST(DtlsRecordVectors, SealerReproducesAndOpenerOpensEveryIndependentRecord) {
  const auto records = test::read_vector_file(test::vectors_dir() / "dtls_records.txt");
  ASSERT_EQ(records.size(), 190u);  // 14 ciphers x CID on/off x sizes (+ EtM for CBC)
  constexpr std::uint64_t kSequence = 0x0000'1234'5678ULL;
  for (const auto& r : records) {
    const RecordCipher cipher = cipher_named(r.get("CIPHER"));
    const Bytes plaintext = r.hex("PLAINTEXT");
    const Bytes expected = r.hex("RECORD");
    SCOPED_TRACE(r.get("CIPHER") + " etm=" + r.get("ETM") + " cid=" + r.get("CID") + " size=" +
                 std::to_string(plaintext.size()) + " (line " + std::to_string(r.line) + ")");
    const KeyBlock kb = *KeyBlock::from_bytes(cipher, r.hex("KEYBLOCK"));
    RecordSealerOptions options;
    options.encrypt_then_mac = r.get("ETM") == "1";
    options.cid = ConnectionId(r.hex("CID"));
    options.random = RandomSource{&fixed_iv, nullptr};
    RecordSealer sealer(cipher, kb.keys(Direction::kClientWrite), 1, options, kSequence);
    Bytes out(sealer.sealed_size(plaintext.size()));
    Result<std::size_t> n = sealer.seal(ContentType::kApplicationData, plaintext, out);
    ASSERT_TRUE(n);
    out.resize(*n);
    EXPECT_EQ(test::to_hex(out), test::to_hex(expected));

    RecordOpener opener(cipher, kb.keys(Direction::kClientWrite), 1,
                        {.encrypt_then_mac = options.encrypt_then_mac, .cid = options.cid});
    Bytes record = expected;
    Result<OpenedRecord> opened = opener.open(record);
    ASSERT_TRUE(opened) << to_string(opened.error());
    EXPECT_EQ(opened->type, ContentType::kApplicationData);
    EXPECT_EQ(opened->sequence, kSequence);
    EXPECT_EQ(test::to_hex(opened->plaintext), test::to_hex(plaintext));
  }
}

TEST(DtlsKeyBlockVectors, DeriveMatchesAnIndependentPrf) {
  const auto blocks = test::read_vector_file(test::vectors_dir() / "dtls_key_block.txt");
  ASSERT_EQ(blocks.size(), 5u);
  for (const auto& r : blocks) {
    const RecordCipher cipher = cipher_named(r.get("CIPHER"));
    const crypto::HashAlgorithm prf =
        r.get("PRF") == "sha384" ? crypto::HashAlgorithm::kSha384 : crypto::HashAlgorithm::kSha256;
    const Bytes master = r.hex("MASTER");
    const Bytes client = r.hex("CLIENT_RANDOM");
    const Bytes server = r.hex("SERVER_RANDOM");
    Result<KeyBlock> kb = KeyBlock::derive(
        cipher, prf,
        std::span<const std::uint8_t, kMasterSecretSize>(master.data(), kMasterSecretSize),
        std::span<const std::uint8_t, kRandomSize>(client.data(), kRandomSize),
        std::span<const std::uint8_t, kRandomSize>(server.data(), kRandomSize));
    ASSERT_TRUE(kb);
    EXPECT_EQ(test::to_hex(kb->bytes()), r.get("KEYBLOCK")) << r.get("CIPHER");
  }
}

}  // namespace
}  // namespace wireseal::dtls
