// CBC MAC-then-encrypt records built with OpenSSL alone (HMAC, AES-CBC without padding),
// with every padding length TLS 1.2 allows (0..255) and with every kind of damage: a valid
// MAC under bad padding, a bad MAC under valid padding, both, and a padding length that runs
// past the record. Good records open; every bad one fails with the same kAuthFailed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "dtls_test_util.h"
#include "support/mte_record.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::dtls {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint16_t kEpoch = 1;

struct Case {
  RecordCipher cipher;
  std::size_t cid_len;
};

std::string case_name(const ::testing::TestParamInfo<Case>& p) {
  return test::cipher_name(p.param.cipher) + (p.param.cid_len != 0 ? "_CID" : "");
}

using test::MteDamage;

class MacThenEncrypt : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(99);
    Bytes kb(KeyBlock::size(GetParam().cipher));
    for (auto& b : kb) {
      b = static_cast<std::uint8_t>(rng());
    }
    block_.emplace(*KeyBlock::from_bytes(GetParam().cipher, kb));
    cid_.assign(GetParam().cid_len, 0xc1);
    options_.cid = ConnectionId(cid_);
  }

  RecordOpener opener() const {
    return RecordOpener(GetParam().cipher, block_->keys(Direction::kClientWrite), kEpoch, options_);
  }

  // record builds an MtE record of `content` independently of wireseal (test::build_mte_record).
  Bytes record(const Bytes& content, std::size_t pad, MteDamage damage, std::mt19937_64& rng) {
    const test::MteRecordSpec spec{GetParam().cipher, block_->keys(Direction::kClientWrite), cid_,
                                   kEpoch, ++sequence_};
    return test::build_mte_record(spec, content, pad, damage, rng);
  }

  // content_for is a content whose record needs exactly `pad` + 1 padding bytes.
  Bytes content_for(std::size_t pad, std::size_t extra_blocks, std::mt19937_64& rng) const {
    Bytes b(test::mte_content_length(GetParam().cipher, !cid_.empty(), pad, extra_blocks));
    for (auto& x : b) {
      x = static_cast<std::uint8_t>(rng());
    }
    return b;
  }

  std::optional<KeyBlock> block_;
  Bytes cid_;
  RecordOpenerOptions options_;
  std::uint64_t sequence_ = 0;
};

TEST_P(MacThenEncrypt, EveryLegalPaddingLengthOpens) {
  std::mt19937_64 rng(1);
  RecordOpener o = opener();
  for (std::size_t pad = 0; pad <= 255; ++pad) {
    for (std::size_t extra : {0u, 1u, 20u}) {
      const Bytes content = content_for(pad, extra, rng);
      Bytes rec = record(content, pad, MteDamage::kNone, rng);
      Result<OpenedRecord> r = o.open(rec);
      ASSERT_TRUE(r) << "padding " << pad << ": " << to_string(r.error());
      EXPECT_EQ(Bytes(r->plaintext.begin(), r->plaintext.end()), content) << pad;
      EXPECT_EQ(r->type, ContentType::kApplicationData);
    }
  }
}

TEST_P(MacThenEncrypt, EveryDamageFailsTheSameWay) {
  std::mt19937_64 rng(2);
  RecordOpener o = opener();
  for (std::size_t pad = 0; pad <= 255; ++pad) {
    for (MteDamage d :
         {MteDamage::kPaddingByte, MteDamage::kMac, MteDamage::kBoth, MteDamage::kPaddingTooLong}) {
      if (pad == 0 && (d == MteDamage::kPaddingByte || d == MteDamage::kBoth)) {
        continue;  // a single padding byte is the length itself
      }
      if (pad == 255 && d == MteDamage::kPaddingTooLong) {
        continue;  // 255 is already the longest padding there is
      }
      Bytes rec = record(content_for(pad, 1, rng), pad, d, rng);
      const std::size_t header = header_size(cid_.size());
      Result<OpenedRecord> r = o.open(rec);
      ASSERT_FALSE(r) << "padding " << pad << " damage " << static_cast<int>(d);
      EXPECT_EQ(r.error(), Error::kAuthFailed)
          << "padding " << pad << " damage " << static_cast<int>(d);
      // Nothing of a rejected record's plaintext is left behind.
      EXPECT_TRUE(std::all_of(rec.begin() + static_cast<long>(header), rec.end(),
                              [](std::uint8_t b) { return b == 0; }));
    }
  }
}

std::vector<Case> cbc_cases() {
  std::vector<Case> cases;
  for (RecordCipher c :
       {RecordCipher::kAes128CbcSha1, RecordCipher::kAes256CbcSha1, RecordCipher::kAes128CbcSha256,
        RecordCipher::kAes256CbcSha256, RecordCipher::kAes256CbcSha384}) {
    cases.push_back({c, 0});
    cases.push_back({c, 4});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(CbcCiphers, MacThenEncrypt, ::testing::ValuesIn(cbc_cases()), case_name);

}  // namespace
}  // namespace wireseal::dtls
