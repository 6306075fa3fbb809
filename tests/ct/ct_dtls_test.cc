// Constant time in DTLS record opening: CBC MAC-then-encrypt at every padding length 0..255,
// good and with every kind of damage (valid MAC with bad padding, bad MAC with valid padding,
// both, padding longer than the record), encrypt-then-MAC, and every AEAD suite, with and
// without a connection ID. Records are built with public keys; the opener's keys are secret,
// so everything it decrypts is too.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>

#include "ct_util.h"
#include "support/mte_record.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::test {
namespace {

using dtls::Direction;
using dtls::RecordCipher;

// secret_block is a key block whose bytes are then marked secret (after `records` were built).
dtls::KeyBlock make_block(RecordCipher cipher) {
  return std::move(*dtls::KeyBlock::from_bytes(cipher, pattern(dtls::KeyBlock::size(cipher), 41)));
}

TEST(CtDtls, MacThenEncryptEveryPaddingGoodAndDamaged) {
  std::mt19937_64 rng(7);
  for (RecordCipher cipher :
       {RecordCipher::kAes128CbcSha1, RecordCipher::kAes256CbcSha1, RecordCipher::kAes128CbcSha256,
        RecordCipher::kAes256CbcSha256, RecordCipher::kAes256CbcSha384}) {
    for (std::size_t cid_len : {0u, 4u}) {
      SCOPED_TRACE(std::string(dtls::info(cipher).name) + (cid_len != 0 ? " CID" : ""));
      dtls::KeyBlock block = make_block(cipher);
      const Bytes cid(cid_len, 0xc1);
      dtls::RecordOpenerOptions options;
      options.cid = dtls::ConnectionId(cid);
      std::vector<std::pair<Bytes, bool>> records;  // in sequence order, so no replay drops
      std::uint64_t seq = 0;
      for (std::size_t pad = 0; pad <= 255; ++pad) {
        const MteRecordSpec spec{cipher, block.keys(Direction::kClientWrite), cid, 1, 0};
        const Bytes content = pattern(mte_content_length(cipher, cid_len != 0, pad, 2), 3);
        for (MteDamage d : {MteDamage::kNone, MteDamage::kPaddingByte, MteDamage::kMac,
                            MteDamage::kBoth, MteDamage::kPaddingTooLong}) {
          if ((pad == 0 && (d == MteDamage::kPaddingByte || d == MteDamage::kBoth)) ||
              (pad == 255 && d == MteDamage::kPaddingTooLong)) {
            continue;
          }
          MteRecordSpec s = spec;
          s.sequence = ++seq;
          records.emplace_back(build_mte_record(s, content, pad, d, rng), d == MteDamage::kNone);
        }
      }
      secret(block.bytes());
      dtls::RecordOpener opener(cipher, block.keys(Direction::kClientWrite), 1, options);
      for (auto& [rec, good] : records) {
        Result<dtls::OpenedRecord> r = opener.open(rec);
        EXPECT_EQ(r.has_value(), good);
        if (!good && !r) {
          EXPECT_EQ(r.error(), Error::kAuthFailed);
        }
      }
    }
  }
}

TEST(CtDtls, EncryptThenMacAndAeadRecords) {
  for (RecordCipher cipher :
       {RecordCipher::kAes128CbcSha1, RecordCipher::kAes256CbcSha384, RecordCipher::kAes128Gcm,
        RecordCipher::kAes256Gcm, RecordCipher::kAes128Ccm, RecordCipher::kAes128Ccm8,
        RecordCipher::kAes256Ccm, RecordCipher::kAes256Ccm8, RecordCipher::kChaCha20Poly1305,
        RecordCipher::kNullSha1, RecordCipher::kNullSha256}) {
    for (std::size_t cid_len : {0u, 4u}) {
      SCOPED_TRACE(std::string(dtls::info(cipher).name) + (cid_len != 0 ? " CID" : ""));
      dtls::KeyBlock block = make_block(cipher);
      dtls::RecordSealerOptions options;
      options.cid = dtls::ConnectionId(Bytes(cid_len, 0xc1));
      options.cid_padding = cid_len != 0 ? 7 : 0;
      options.encrypt_then_mac = dtls::info(cipher).kind == dtls::CipherKind::kCbc;
      dtls::RecordSealer sealer(cipher, block.keys(Direction::kClientWrite), 1, options);
      std::vector<Bytes> records;
      for (std::size_t n : {0u, 1u, 100u, 1400u}) {
        const Bytes plain = pattern(n, 5);
        Bytes rec(sealer.sealed_size(n));
        ASSERT_TRUE(sealer.seal(dtls::ContentType::kApplicationData, plain, rec));
        records.push_back(rec);
        rec[rec.size() - 3] ^= 0x40;  // a forged copy
        records.push_back(rec);
      }
      secret(block.bytes());
      dtls::RecordOpener opener(cipher, block.keys(Direction::kClientWrite), 1,
                                {.encrypt_then_mac = options.encrypt_then_mac, .cid = options.cid});
      for (std::size_t i = 0; i < records.size(); ++i) {
        EXPECT_EQ(opener.open(records[i]).has_value(), i % 2 == 0) << i;
      }
      // Sealing under secret keys, too.
      dtls::RecordSealer secret_sealer(block, Direction::kServerWrite, 1, options);
      Bytes plain = pattern(300, 9);
      secret(plain);
      Bytes rec(secret_sealer.sealed_size(plain.size()));
      EXPECT_TRUE(secret_sealer.seal(dtls::ContentType::kApplicationData, plain, rec));
    }
  }
}

}  // namespace
}  // namespace wireseal::test
