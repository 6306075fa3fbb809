#include "bench/baseline_openssl_dtls.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace wireseal::bench::openssl {
namespace {

using dtls::CipherKind;
using dtls::RecordCipher;

constexpr std::size_t kHeader = 13;
constexpr std::size_t kCbcIv = 16;
constexpr std::uint16_t kVersion = 0xfefd;  // DTLS 1.2

void store_be(std::uint8_t* p, std::uint64_t v, std::size_t bytes) noexcept {
  for (std::size_t i = 0; i < bytes; ++i) {
    p[bytes - 1 - i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
}

std::uint64_t load_be(const std::uint8_t* p, std::size_t bytes) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    v = v << 8 | p[i];
  }
  return v;
}

// pseudo_header writes seq_num(8) || type || version || length: the AEAD additional data and
// the CBC MAC's prefix alike (RFC 5246 §6.2.3, with DTLS's epoch|sequence as seq_num).
void pseudo_header(std::uint64_t epoch_seq, std::uint8_t type, std::size_t length,
                   std::uint8_t* out) noexcept {
  store_be(out, epoch_seq, 8);
  out[8] = type;
  store_be(out + 9, kVersion, 2);
  store_be(out + 11, length, 2);
}

const char* aead_name(RecordCipher c) {
  switch (c) {
    case RecordCipher::kAes128Gcm:
      return "AES-128-GCM";
    case RecordCipher::kAes256Gcm:
      return "AES-256-GCM";
    case RecordCipher::kAes128Ccm:
    case RecordCipher::kAes128Ccm8:
      return "AES-128-CCM";
    case RecordCipher::kAes256Ccm:
    case RecordCipher::kAes256Ccm8:
      return "AES-256-CCM";
    case RecordCipher::kChaCha20Poly1305:
      return "ChaCha20-Poly1305";
    default:
      throw std::invalid_argument("openssl dtls baseline: not an AEAD record cipher");
  }
}

const char* digest_name(crypto::HashAlgorithm h) {
  switch (h) {
    case crypto::HashAlgorithm::kSha1:
      return "SHA1";
    case crypto::HashAlgorithm::kSha256:
      return "SHA256";
    case crypto::HashAlgorithm::kSha384:
      return "SHA384";
    default:
      throw std::invalid_argument("openssl dtls baseline: unsupported MAC hash");
  }
}

struct MacFree {
  void operator()(EVP_MAC* m) const noexcept { EVP_MAC_free(m); }
};

MacCtx new_hmac(crypto::HashAlgorithm hash, In key) {
  std::unique_ptr<EVP_MAC, MacFree> mac(EVP_MAC_fetch(nullptr, "HMAC", nullptr));
  if (!mac) {
    throw std::runtime_error("openssl dtls baseline: no HMAC");
  }
  MacCtx ctx(EVP_MAC_CTX_new(mac.get()));
  if (!ctx) {
    throw std::bad_alloc();
  }
  // OSSL_PARAM takes non-const char*; the string is only read.
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string("digest", const_cast<char*>(digest_name(hash)), 0),
      OSSL_PARAM_construct_end()};
  if (EVP_MAC_init(ctx.get(), key.data(), key.size(), params) != 1) {
    throw std::runtime_error("openssl dtls baseline: EVP_MAC_init");
  }
  return ctx;
}

}  // namespace

DtlsCrypto::DtlsCrypto(RecordCipher cipher, const dtls::DirectionKeys& keys, bool encrypt_then_mac)
    : info_(dtls::info(cipher)), etm_(encrypt_then_mac) {
  if (info_.kind == CipherKind::kAead) {
    aead.emplace(aead_name(cipher), keys.enc_key, info_.tag_len, 12);
    std::memcpy(iv_, keys.iv.data(), keys.iv.size());
  } else if (info_.kind == CipherKind::kCbc) {
    const char* name = info_.enc_key_len == 16 ? "AES-128-CBC" : "AES-256-CBC";
    cbc_enc.emplace(name, keys.enc_key, true);
    cbc_dec.emplace(name, keys.enc_key, false);
    hmac_ = new_hmac(info_.mac_hash, keys.mac_key);
  } else {
    throw std::invalid_argument("openssl dtls baseline: NULL cipher not benchmarked");
  }
}

void DtlsCrypto::nonce(std::uint64_t epoch_seq, const std::uint8_t* explicit_nonce,
                       std::uint8_t* out) const noexcept {
  if (info_.explicit_nonce_len == 8) {
    std::memcpy(out, iv_, 4);  // RFC 5288 §3: salt || nonce_explicit
    std::memcpy(out + 4, explicit_nonce, 8);
    return;
  }
  std::uint8_t seq[12] = {};  // RFC 7905 §2: IV XOR the sequence number padded to 12 bytes
  store_be(seq + 4, epoch_seq, 8);
  for (std::size_t i = 0; i < 12; ++i) {
    out[i] = static_cast<std::uint8_t>(iv_[i] ^ seq[i]);
  }
}

bool DtlsCrypto::mac(const std::uint8_t* pseudo, const std::uint8_t* data, std::size_t len,
                     std::uint8_t* out) noexcept {
  EVP_MAC_CTX* ctx = hmac_.get();
  std::size_t out_len = 0;
  // NULL key: restart with the key scheduled at construction.
  return EVP_MAC_init(ctx, nullptr, 0, nullptr) == 1 && EVP_MAC_update(ctx, pseudo, kHeader) == 1 &&
         EVP_MAC_update(ctx, data, len) == 1 &&
         EVP_MAC_final(ctx, out, &out_len, info_.tag_len) == 1 && out_len == info_.tag_len;
}

// ----------------------------------------------------------------------------- CBC IVs

CbcIvGenerator::CbcIvGenerator() {
  std::uint8_t key[16];
  if (RAND_bytes(key, sizeof(key)) != 1 || RAND_bytes(counter_block_, 8) != 1) {
    throw std::runtime_error("openssl dtls baseline: RAND_bytes");
  }
  ctr_.emplace("AES-128-CTR", key, true);
  OPENSSL_cleanse(key, sizeof(key));
}

bool CbcIvGenerator::next(std::uint8_t* iv) noexcept {
  static constexpr std::uint8_t kZeros[16] = {};
  // The keystream block for this counter is the IV.
  if (!ctr_->apply(counter_block_, kZeros, {iv, kCbcIv})) {
    return false;
  }
  store_be(counter_block_ + 8, load_be(counter_block_ + 8, 8) + 1, 8);
  return true;
}

// ----------------------------------------------------------------------------- sealer

DtlsSealer::DtlsSealer(RecordCipher cipher, const dtls::DirectionKeys& keys, std::uint16_t epoch,
                       bool encrypt_then_mac, std::uint64_t first_sequence)
    : crypto_(cipher, keys, encrypt_then_mac), epoch_(epoch), next_sequence_(first_sequence) {
  if (crypto_.info().kind == CipherKind::kCbc) {
    iv_generator_.emplace();
  }
}

std::size_t DtlsSealer::payload_offset() const noexcept {
  return kHeader + crypto_.info().explicit_nonce_len;
}

std::size_t DtlsSealer::sealed_size(std::size_t n) const noexcept {
  const dtls::RecordCipherInfo& c = crypto_.info();
  if (c.kind == CipherKind::kAead) {
    return payload_offset() + n + c.tag_len;
  }
  if (crypto_.etm()) {
    return payload_offset() + n + (16 - n % 16) + c.tag_len;
  }
  return payload_offset() + n + c.tag_len + (16 - (n + c.tag_len) % 16);
}

std::size_t DtlsSealer::seal(std::uint8_t type, std::size_t n,
                             std::span<std::uint8_t> out) noexcept {
  const dtls::RecordCipherInfo& c = crypto_.info();
  const std::size_t total = sealed_size(n);
  if (out.size() < total || next_sequence_ >> 48 != 0) {
    return 0;
  }
  const std::uint64_t epoch_seq = std::uint64_t{epoch_} << 48 | next_sequence_;
  std::uint8_t* rec = out.data();
  rec[0] = type;
  store_be(rec + 1, kVersion, 2);
  store_be(rec + 3, epoch_seq, 8);  // epoch(2) || sequence(6)
  store_be(rec + 11, total - kHeader, 2);
  std::uint8_t* payload = rec + payload_offset();
  std::uint8_t pseudo[kHeader];

  if (c.kind == CipherKind::kAead) {
    std::uint8_t nonce[12];
    if (c.explicit_nonce_len == 8) {
      store_be(rec + kHeader, epoch_seq, 8);
    }
    crypto_.nonce(epoch_seq, rec + kHeader, nonce);
    pseudo_header(epoch_seq, type, n, pseudo);
    if (!crypto_.aead->seal(nonce, pseudo, {payload, n}, {payload, n}, {payload + n, c.tag_len})) {
      return 0;
    }
  } else {
    std::uint8_t* iv = rec + kHeader;
    if (!iv_generator_->next(iv)) {
      return 0;
    }
    if (crypto_.etm()) {
      const std::size_t pad = 16 - n % 16;
      std::memset(payload + n, static_cast<int>(pad - 1), pad);
      const std::size_t enc_len = n + pad;
      pseudo_header(epoch_seq, type, kCbcIv + enc_len, pseudo);
      if (!crypto_.cbc_enc->apply({iv, kCbcIv}, {payload, enc_len}, {payload, enc_len}) ||
          !crypto_.mac(pseudo, iv, kCbcIv + enc_len, payload + enc_len)) {
        return 0;
      }
    } else {
      pseudo_header(epoch_seq, type, n, pseudo);
      if (!crypto_.mac(pseudo, payload, n, payload + n)) {
        return 0;
      }
      const std::size_t pad = 16 - (n + c.tag_len) % 16;
      std::memset(payload + n + c.tag_len, static_cast<int>(pad - 1), pad);
      const std::size_t enc_len = n + c.tag_len + pad;
      if (!crypto_.cbc_enc->apply({iv, kCbcIv}, {payload, enc_len}, {payload, enc_len})) {
        return 0;
      }
    }
  }
  ++next_sequence_;
  return total;
}

// ----------------------------------------------------------------------------- opener

DtlsOpener::DtlsOpener(RecordCipher cipher, const dtls::DirectionKeys& keys, std::uint16_t epoch,
                       bool encrypt_then_mac)
    : crypto_(cipher, keys, encrypt_then_mac), epoch_(epoch) {}

bool DtlsOpener::open(std::span<std::uint8_t> record, std::size_t* offset,
                      std::size_t* len) noexcept {
  if (record.size() < kHeader) {
    return false;
  }
  std::uint8_t* rec = record.data();
  const std::uint8_t type = rec[0];
  const std::uint64_t epoch_seq = load_be(rec + 3, 8);
  const std::uint64_t seq = epoch_seq & ((std::uint64_t{1} << 48) - 1);
  const auto fragment_len = static_cast<std::size_t>(load_be(rec + 11, 2));
  if (load_be(rec + 1, 2) != kVersion || kHeader + fragment_len > record.size() ||
      (epoch_seq >> 48) != epoch_) {
    return false;
  }
  if (seen_any_ && seq <= top_ && (top_ - seq >= 64 || (bits_ >> (top_ - seq) & 1) != 0)) {
    return false;  // replay or too old
  }
  const dtls::RecordCipherInfo& c = crypto_.info();
  std::uint8_t* fragment = rec + kHeader;
  std::uint8_t pseudo[kHeader];
  std::size_t n = 0;

  if (c.kind == CipherKind::kAead) {
    if (fragment_len < c.explicit_nonce_len + c.tag_len) {
      return false;
    }
    n = fragment_len - c.explicit_nonce_len - c.tag_len;
    std::uint8_t nonce[12];
    crypto_.nonce(epoch_seq, fragment, nonce);
    pseudo_header(epoch_seq, type, n, pseudo);
    std::uint8_t* body = fragment + c.explicit_nonce_len;
    if (!crypto_.aead->open(nonce, pseudo, {body, n}, {body, n}, {body + n, c.tag_len})) {
      return false;
    }
    *offset = kHeader + c.explicit_nonce_len;
  } else {
    const std::size_t mac_len = c.tag_len;
    std::uint8_t* iv = fragment;
    std::uint8_t* body = fragment + kCbcIv;
    std::uint8_t expected[64];
    if (crypto_.etm()) {
      if (fragment_len < kCbcIv + 16 + mac_len || (fragment_len - kCbcIv - mac_len) % 16 != 0) {
        return false;
      }
      const std::size_t enc_len = fragment_len - kCbcIv - mac_len;
      pseudo_header(epoch_seq, type, kCbcIv + enc_len, pseudo);
      if (!crypto_.mac(pseudo, iv, kCbcIv + enc_len, expected) ||
          CRYPTO_memcmp(expected, body + enc_len, mac_len) != 0 ||
          !crypto_.cbc_dec->apply({iv, kCbcIv}, {body, enc_len}, {body, enc_len})) {
        return false;
      }
      const std::size_t pad = body[enc_len - 1];
      if (pad + 1 > enc_len) {
        return false;
      }
      for (std::size_t i = 0; i <= pad; ++i) {
        if (body[enc_len - 1 - i] != pad) {
          return false;
        }
      }
      n = enc_len - pad - 1;
    } else {
      if (fragment_len < kCbcIv + 16 || (fragment_len - kCbcIv) % 16 != 0) {
        return false;
      }
      const std::size_t enc_len = fragment_len - kCbcIv;
      if (!crypto_.cbc_dec->apply({iv, kCbcIv}, {body, enc_len}, {body, enc_len})) {
        return false;
      }
      // Plain, early-exit padding check: timing leaks the padding (Lucky 13). See header.
      const std::size_t pad = body[enc_len - 1];
      if (pad + 1 + mac_len > enc_len) {
        return false;
      }
      for (std::size_t i = 0; i <= pad; ++i) {
        if (body[enc_len - 1 - i] != pad) {
          return false;
        }
      }
      n = enc_len - pad - 1 - mac_len;
      pseudo_header(epoch_seq, type, n, pseudo);
      if (!crypto_.mac(pseudo, body, n, expected) ||
          CRYPTO_memcmp(expected, body + n, mac_len) != 0) {
        return false;
      }
    }
    *offset = kHeader + kCbcIv;
  }
  // Slide the window only for records that authenticated.
  if (!seen_any_) {
    seen_any_ = true;
    top_ = seq;
    bits_ = 1;
  } else if (seq > top_) {
    bits_ = seq - top_ >= 64 ? 1 : bits_ << (seq - top_) | 1;
    top_ = seq;
  } else {
    bits_ |= std::uint64_t{1} << (top_ - seq);
  }
  *len = n;
  return true;
}

}  // namespace wireseal::bench::openssl
