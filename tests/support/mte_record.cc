#include "support/mte_record.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <stdexcept>

#include "support/random_below.h"
#include "wireseal/dtls/record.h"

namespace wireseal::test {
namespace {

using Bytes = std::vector<std::uint8_t>;

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

// pseudo_header is the MAC's input before the content: RFC 5246 §6.2.3.1, or RFC 9146 §5.
Bytes pseudo_header(const MteRecordSpec& spec, std::uint8_t outer_type, std::size_t inner_len) {
  const std::uint64_t epoch_seq = std::uint64_t{spec.epoch} << 48 | spec.sequence;
  Bytes p;
  if (!spec.cid.empty()) {
    p.assign(8, 0xff);
    p.push_back(outer_type);
    p.push_back(static_cast<std::uint8_t>(spec.cid.size()));
    p.push_back(outer_type);
    put_be(p, dtls::kDtls12Version, 2);
    put_be(p, epoch_seq, 8);
    p.insert(p.end(), spec.cid.begin(), spec.cid.end());
  } else {
    put_be(p, epoch_seq, 8);
    p.push_back(outer_type);
    put_be(p, dtls::kDtls12Version, 2);
  }
  put_be(p, inner_len, 2);
  return p;
}

}  // namespace

std::size_t mte_content_length(dtls::RecordCipher cipher, bool with_cid, std::size_t pad,
                               std::size_t extra_blocks) {
  const std::size_t mac = dtls::info(cipher).tag_len;
  const std::size_t type_byte = with_cid ? 1 : 0;
  return (16 - (type_byte + mac + pad + 1) % 16) % 16 + 16 * extra_blocks;
}

Bytes build_mte_record(const MteRecordSpec& spec, std::span<const std::uint8_t> content,
                       std::size_t pad, MteDamage damage, std::mt19937_64& rng) {
  const dtls::RecordCipherInfo& c = dtls::info(spec.cipher);
  const bool with_cid = !spec.cid.empty();
  Bytes inner(content.begin(), content.end());
  if (with_cid) {
    inner.push_back(static_cast<std::uint8_t>(dtls::ContentType::kApplicationData));
  }
  const auto outer_type = static_cast<std::uint8_t>(with_cid ? dtls::ContentType::kTls12Cid
                                                             : dtls::ContentType::kApplicationData);
  Bytes mac_input = pseudo_header(spec, outer_type, inner.size());
  mac_input.insert(mac_input.end(), inner.begin(), inner.end());
  std::uint8_t mac[EVP_MAX_MD_SIZE];
  unsigned mac_len = 0;
  HMAC(evp_hash(c.mac_hash), spec.keys.mac_key.data(), static_cast<int>(spec.keys.mac_key.size()),
       mac_input.data(), mac_input.size(), mac, &mac_len);

  Bytes body = inner;
  body.insert(body.end(), mac, mac + mac_len);
  if (damage == MteDamage::kMac || damage == MteDamage::kBoth) {
    body[inner.size() + below(rng, mac_len)] ^= 0x20;
  }
  const std::size_t pad_start = body.size();
  body.insert(body.end(), pad + 1, static_cast<std::uint8_t>(pad));
  if ((damage == MteDamage::kPaddingByte || damage == MteDamage::kBoth) && pad > 0) {
    body[pad_start + below(rng, pad)] ^= 0x01;
  }
  if (damage == MteDamage::kPaddingTooLong) {
    std::fill(body.end() - static_cast<long>(std::min<std::size_t>(256, body.size())), body.end(),
              std::uint8_t{255});
  }
  if (body.size() % 16 != 0) {
    throw std::invalid_argument("build_mte_record: content length does not fit the padding");
  }

  Bytes iv(16);
  for (auto& b : iv) {
    b = static_cast<std::uint8_t>(rng());
  }
  Bytes encrypted(body.size());
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  const EVP_CIPHER* aes = spec.keys.enc_key.size() == 16 ? EVP_aes_128_cbc() : EVP_aes_256_cbc();
  EVP_EncryptInit_ex(ctx, aes, nullptr, spec.keys.enc_key.data(), iv.data());
  EVP_CIPHER_CTX_set_padding(ctx, 0);
  int len = 0;
  EVP_EncryptUpdate(ctx, encrypted.data(), &len, body.data(), static_cast<int>(body.size()));
  EVP_CIPHER_CTX_free(ctx);

  Bytes rec;
  rec.push_back(outer_type);
  put_be(rec, dtls::kDtls12Version, 2);
  put_be(rec, std::uint64_t{spec.epoch} << 48 | spec.sequence, 8);
  rec.insert(rec.end(), spec.cid.begin(), spec.cid.end());
  put_be(rec, iv.size() + encrypted.size(), 2);
  rec.insert(rec.end(), iv.begin(), iv.end());
  rec.insert(rec.end(), encrypted.begin(), encrypted.end());
  return rec;
}

}  // namespace wireseal::test
