#include "record_crypto.h"

#include <cstring>
#include <stdexcept>

#include "common/bytes.h"
#include "common/ct.h"
#include "record_layout.h"
#include "wireseal/random.h"

namespace wireseal::dtls::detail {
namespace {

crypto::AeadAlgorithm aead_algorithm(RecordCipher cipher) noexcept {
  switch (cipher) {
    case RecordCipher::kAes128Gcm:
      return crypto::AeadAlgorithm::kAes128Gcm;
    case RecordCipher::kAes256Gcm:
      return crypto::AeadAlgorithm::kAes256Gcm;
    case RecordCipher::kAes128Ccm:
    case RecordCipher::kAes128Ccm8:
      return crypto::AeadAlgorithm::kAes128Ccm;
    case RecordCipher::kAes256Ccm:
    case RecordCipher::kAes256Ccm8:
      return crypto::AeadAlgorithm::kAes256Ccm;
    default:
      return crypto::AeadAlgorithm::kChaCha20Poly1305;
  }
}

}  // namespace

RecordCrypto::RecordCrypto(RecordCipher cipher, const DirectionKeys& keys, crypto::Backend backend)
    : cipher_(cipher), info_(dtls::info(cipher)) {
  if (keys.enc_key.size() != info_.enc_key_len || keys.mac_key.size() != info_.mac_key_len ||
      keys.iv.size() != info_.fixed_iv_len) {
    throw std::invalid_argument("wireseal::dtls: key sizes do not match the record cipher");
  }
  switch (info_.kind) {
    case CipherKind::kAead:
      aead.emplace(
          aead_algorithm(cipher), keys.enc_key,
          crypto::AeadOptions{.tag_len = info_.tag_len, .nonce_len = 12, .backend = backend});
      std::memcpy(iv_.data(), keys.iv.data(), keys.iv.size());
      break;
    case CipherKind::kCbc:
      cbc.emplace(keys.enc_key, backend);
      hmac.emplace(info_.mac_hash, keys.mac_key);
      break;
    case CipherKind::kNull:
      hmac.emplace(info_.mac_hash, keys.mac_key);
      break;
  }
}

RecordCrypto::~RecordCrypto() {
  wireseal::detail::secure_wipe(iv_.data(), iv_.size());
  wireseal::detail::secure_wipe(iv_counter_.data(), iv_counter_.size());
}

void RecordCrypto::enable_iv_generator() {
  std::uint8_t key[16];
  system_random()(key);
  system_random()({iv_counter_.data(), 8});
  iv_generator_.emplace(key);
  wireseal::detail::secure_wipe(key, sizeof(key));
}

void RecordCrypto::next_iv(std::uint8_t* out) noexcept {
  static constexpr std::uint8_t kZeros[16] = {};
  (void)iv_generator_->apply(iv_counter_, kZeros, {out, 16});
  store_be64(iv_counter_.data() + 8, load_be64(iv_counter_.data() + 8) + 1);
}

void RecordCrypto::nonce(std::uint64_t epoch_seq, const std::uint8_t* explicit_nonce,
                         std::uint8_t* out) const noexcept {
  if (info_.explicit_nonce_len == 8) {
    // RFC 5288 §3 / RFC 6655 §3: salt (4, implicit) || nonce_explicit (8, in the record).
    std::memcpy(out, iv_.data(), 4);
    std::memcpy(out + 4, explicit_nonce, 8);
    return;
  }
  // RFC 7905 §2: the 64-bit sequence number, left-padded to 12 bytes, XOR the IV.
  std::memcpy(out, iv_.data(), 12);
  std::uint8_t seq[8];
  store_be64(seq, epoch_seq);
  for (int i = 0; i < 8; ++i) {
    out[4 + i] ^= seq[i];
  }
}

std::size_t build_aad(std::uint64_t epoch_seq, ContentType type, std::uint16_t version,
                      std::span<const std::uint8_t> cid, std::size_t length,
                      std::uint8_t* out) noexcept {
  if (cid.empty()) {
    aad_without_cid(epoch_seq, type, version, static_cast<std::uint16_t>(length), out);
    return 13;
  }
  // RFC 9146 §5: seq_num_placeholder (8 x 0xff), tls12_cid, cid_length, tls12_cid, version,
  // epoch|sequence, cid, length.
  std::memset(out, 0xff, 8);
  out[8] = static_cast<std::uint8_t>(ContentType::kTls12Cid);
  out[9] = static_cast<std::uint8_t>(cid.size());
  out[10] = static_cast<std::uint8_t>(ContentType::kTls12Cid);
  store_be16(out + 11, version);
  store_be64(out + 13, epoch_seq);
  std::memcpy(out + 21, cid.data(), cid.size());
  store_be16(out + 21 + cid.size(), static_cast<std::uint16_t>(length));
  return 23 + cid.size();
}

}  // namespace wireseal::dtls::detail
