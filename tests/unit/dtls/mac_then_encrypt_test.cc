// CBC MAC-then-encrypt records built here with OpenSSL alone (HMAC, AES-CBC without padding),
// with every padding length TLS 1.2 allows (0..255) and with every kind of damage: a valid
// MAC under bad padding, a bad MAC under valid padding, both, and a padding length that runs
// past the record. Good records open; every bad one fails with the same kAuthFailed.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "wireseal/dtls/record_protector.h"

namespace wireseal::dtls {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint16_t kEpoch = 1;

struct Case {
  RecordCipher cipher;
  std::size_t cid_len;
};

std::string case_name(const ::testing::TestParamInfo<Case>& p) {
  std::string n = info(p.param.cipher).name;
  for (char& ch : n) {
    if (ch == '-') {
      ch = '_';
    }
  }
  return n + (p.param.cid_len != 0 ? "_CID" : "");
}

const EVP_MD* evp_hash(crypto::HashAlgorithm h) {
  switch (h) {
    case crypto::HashAlgorithm::kSha1:
      return EVP_sha1();
    case crypto::HashAlgorithm::kSha256:
      return EVP_sha256();
    default:
      return EVP_sha384();
  }
}

void put_be(Bytes& b, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
}

// Damage says what to spoil in a hand-built record.
enum class Damage { kNone, kPaddingByte, kMac, kBoth, kPaddingTooLong };

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

  // record builds an MtE record of `content` with `pad` + 1 padding bytes, independently of
  // wireseal: MAC(pseudo-header | inner), then AES-CBC over inner | MAC | padding.
  Bytes record(const Bytes& content, std::size_t pad, Damage damage, std::mt19937_64& rng) {
    const RecordCipherInfo& c = info(GetParam().cipher);
    const DirectionKeys keys = block_->keys(Direction::kClientWrite);
    const std::uint64_t seq = ++sequence_;
    const std::uint64_t epoch_seq = std::uint64_t{kEpoch} << 48 | seq;
    const bool with_cid = !cid_.empty();
    Bytes inner = content;
    if (with_cid) {
      inner.push_back(static_cast<std::uint8_t>(ContentType::kApplicationData));
    }
    const std::uint8_t outer_type =
        static_cast<std::uint8_t>(with_cid ? ContentType::kTls12Cid : ContentType::kApplicationData);
    Bytes pseudo;
    if (with_cid) {  // RFC 9146 §5
      pseudo.assign(8, 0xff);
      pseudo.push_back(outer_type);
      pseudo.push_back(static_cast<std::uint8_t>(cid_.size()));
      pseudo.push_back(outer_type);
      put_be(pseudo, kDtls12Version, 2);
      put_be(pseudo, epoch_seq, 8);
      pseudo.insert(pseudo.end(), cid_.begin(), cid_.end());
    } else {
      put_be(pseudo, epoch_seq, 8);
      pseudo.push_back(outer_type);
      put_be(pseudo, kDtls12Version, 2);
    }
    put_be(pseudo, inner.size(), 2);
    pseudo.insert(pseudo.end(), inner.begin(), inner.end());
    std::uint8_t mac[EVP_MAX_MD_SIZE];
    unsigned mac_len = 0;
    HMAC(evp_hash(c.mac_hash), keys.mac_key.data(), static_cast<int>(keys.mac_key.size()),
         pseudo.data(), pseudo.size(), mac, &mac_len);
    Bytes body = inner;
    body.insert(body.end(), mac, mac + mac_len);
    if (damage == Damage::kMac || damage == Damage::kBoth) {
      body[inner.size() + rng() % mac_len] ^= 0x20;
    }
    const std::size_t pad_start = body.size();
    body.insert(body.end(), pad + 1, static_cast<std::uint8_t>(pad));
    if (damage == Damage::kPaddingByte || damage == Damage::kBoth) {
      body[pad_start + rng() % pad] ^= 0x01;  // never the length byte itself
    }
    if (damage == Damage::kPaddingTooLong) {
      body.back() = 255;
      std::fill(body.end() - static_cast<long>(std::min<std::size_t>(256, body.size())), body.end(), 255);
    }
    EXPECT_EQ(body.size() % 16, 0u);
    Bytes iv(16);
    for (auto& b : iv) {
      b = static_cast<std::uint8_t>(rng());
    }
    Bytes encrypted(body.size());
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    const EVP_CIPHER* aes = keys.enc_key.size() == 16 ? EVP_aes_128_cbc() : EVP_aes_256_cbc();
    EVP_EncryptInit_ex(ctx, aes, nullptr, keys.enc_key.data(), iv.data());
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    int len = 0;
    EVP_EncryptUpdate(ctx, encrypted.data(), &len, body.data(), static_cast<int>(body.size()));
    EVP_CIPHER_CTX_free(ctx);
    Bytes rec;
    rec.push_back(outer_type);
    put_be(rec, kDtls12Version, 2);
    put_be(rec, epoch_seq, 8);
    rec.insert(rec.end(), cid_.begin(), cid_.end());
    put_be(rec, iv.size() + encrypted.size(), 2);
    rec.insert(rec.end(), iv.begin(), iv.end());
    rec.insert(rec.end(), encrypted.begin(), encrypted.end());
    return rec;
  }

  // content_for is a content whose record needs exactly `pad` + 1 padding bytes.
  Bytes content_for(std::size_t pad, std::size_t extra_blocks, std::mt19937_64& rng) const {
    const std::size_t mac = info(GetParam().cipher).tag_len;
    const std::size_t type_byte = cid_.empty() ? 0 : 1;
    const std::size_t n = (16 - (type_byte + mac + pad + 1) % 16) % 16 + 16 * extra_blocks;
    Bytes b(n);
    for (auto& x : b) {
      x = static_cast<std::uint8_t>(rng());
    }
    return b;
  }

  std::optional<KeyBlock> block_;
  Bytes cid_;
  RecordOptions options_;
  std::uint64_t sequence_ = 0;
};

TEST_P(MacThenEncrypt, EveryLegalPaddingLengthOpens) {
  std::mt19937_64 rng(1);
  RecordOpener o = opener();
  for (std::size_t pad = 0; pad <= 255; ++pad) {
    for (std::size_t extra : {0u, 1u, 20u}) {
      const Bytes content = content_for(pad, extra, rng);
      Bytes rec = record(content, pad, Damage::kNone, rng);
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
    for (Damage d : {Damage::kPaddingByte, Damage::kMac, Damage::kBoth, Damage::kPaddingTooLong}) {
      if (pad == 0 && (d == Damage::kPaddingByte || d == Damage::kBoth)) {
        continue;  // a single padding byte is the length itself
      }
      if (pad == 255 && d == Damage::kPaddingTooLong) {
        continue;  // 255 is already the longest padding there is
      }
      Bytes rec = record(content_for(pad, 1, rng), pad, d, rng);
      const std::size_t header = header_size(cid_.size());
      Result<OpenedRecord> r = o.open(rec);
      ASSERT_FALSE(r) << "padding " << pad << " damage " << static_cast<int>(d);
      EXPECT_EQ(r.error(), Error::kAuthFailed) << "padding " << pad << " damage " << static_cast<int>(d);
      // Nothing of a rejected record's plaintext is left behind.
      EXPECT_TRUE(std::all_of(rec.begin() + static_cast<long>(header), rec.end(),
                              [](std::uint8_t b) { return b == 0; }));
    }
  }
}

std::vector<Case> cbc_cases() {
  std::vector<Case> cases;
  for (RecordCipher c : {RecordCipher::kAes128CbcSha1, RecordCipher::kAes256CbcSha1,
                         RecordCipher::kAes128CbcSha256, RecordCipher::kAes256CbcSha256,
                         RecordCipher::kAes256CbcSha384}) {
    cases.push_back({c, 0});
    cases.push_back({c, 4});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(CbcCiphers, MacThenEncrypt, ::testing::ValuesIn(cbc_cases()), case_name);

}  // namespace
}  // namespace wireseal::dtls
