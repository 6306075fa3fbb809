// RecordOpener: DTLS 1.2 record parsing, checks and decryption over the crypto core.
//
//   open ─ parse, CID, epoch, replay window ─┬─ open_aead  (GCM, CCM, ChaCha20-Poly1305)
//                                            ├─ open_cbc   (MAC-then-encrypt or RFC 7366 EtM)
//                                            └─ open_null  (HMAC only)
//        ─ inner plaintext (CID: real type) ─ window update ─ OpenedRecord
#include "wireseal/dtls/record_opener.h"

#include <cstring>
#include <stdexcept>

#include "common/create.h"
#include "common/ct.h"
#include "record_crypto.h"
#include "record_layout.h"

namespace wireseal::dtls {
namespace {

using detail::build_aad;
using detail::epoch_seq;
using detail::kCbcIvSize;
using detail::kMaxAadSize;
using detail::RecordCrypto;
using wireseal::detail::secure_wipe;
using wireseal::detail::tag_matches;

// hmac_matches computes the record MAC over `aad` then `body` and compares it with `mac` in
// constant time.
bool hmac_matches(const crypto::Hmac& hmac, std::span<const std::uint8_t> aad,
                  std::span<const std::uint8_t> body, std::span<const std::uint8_t> mac) noexcept {
  crypto::Hmac::Stream stream = hmac.begin();
  stream.update(aad);
  stream.update(body);
  std::uint8_t expected[crypto::kMaxDigestLength];
  (void)stream.finish({expected, mac.size()});
  return tag_matches({expected, mac.size()}, mac);
}

// strip_cid_inner splits an RFC 9146 DTLSInnerPlaintext (content | real type | zeros): the
// real type is the last non-zero byte.
Result<ContentType> strip_cid_inner(std::span<std::uint8_t>& inner) noexcept {
  std::size_t end = inner.size();
  while (end > 0 && inner[end - 1] == 0) {
    --end;
  }
  if (end == 0) {
    return Error::kMalformed;
  }
  const auto type = static_cast<ContentType>(inner[end - 1]);
  inner = inner.first(end - 1);
  return type;
}

}  // namespace

RecordOpener::RecordOpener(RecordCipher cipher, const DirectionKeys& keys, std::uint16_t epoch,
                           RecordOpenerOptions options)
    : crypto_(std::make_unique<RecordCrypto>(cipher, keys, options.backend)),
      options_(options),
      epoch_(epoch),
      window_(options_.replay_window) {
  if (options_.encrypt_then_mac && crypto_->info().kind != CipherKind::kCbc) {
    throw std::invalid_argument("wireseal::dtls: encrypt_then_mac applies to CBC ciphers only");
  }
}

Result<RecordOpener> RecordOpener::create(RecordCipher cipher, const DirectionKeys& keys,
                                          std::uint16_t epoch,
                                          RecordOpenerOptions options) noexcept {
  return wireseal::detail::try_create<RecordOpener>(cipher, keys, epoch, options);
}

RecordOpener::~RecordOpener() = default;
RecordOpener::RecordOpener(RecordOpener&&) noexcept = default;
RecordOpener& RecordOpener::operator=(RecordOpener&&) noexcept = default;

RecordCipher RecordOpener::cipher() const noexcept { return crypto_->cipher(); }

Result<OpenedRecord> RecordOpener::open(std::span<std::uint8_t> bytes) noexcept {
  Result<OpenedRecord> opened = open_record(bytes);
  if (!opened) {
    drops_.count(opened.error());
  }
  return opened;
}

Result<OpenedRecord> RecordOpener::open(std::span<const std::uint8_t> bytes,
                                        std::span<std::uint8_t> out) noexcept {
  if (bytes.data() == out.data()) {
    return open(out.first(std::min(out.size(), bytes.size())));
  }
  // The record's length is known only once its header parses; copying it is one pass over
  // bytes the cipher then reads from cache.
  Result<RecordView> parsed = parse_record(bytes, options_.cid.size());
  if (!parsed) {
    drops_.count(parsed.error());
    return parsed.error();
  }
  const std::size_t n = parsed->record.size();
  if (out.size() < n) {
    drops_.count(Error::kBufferTooSmall);
    return Error::kBufferTooSmall;
  }
  if (wireseal::detail::overlaps(bytes.data(), n, out.data(), n)) {
    drops_.count(Error::kAliasing);
    return Error::kAliasing;
  }
  std::memcpy(out.data(), bytes.data(), n);
  Result<OpenedRecord> opened = open(out.first(n));
  if (!opened) {
    secure_wipe(out.data(), n);
  }
  return opened;
}

// open_aead: explicit nonce (GCM, CCM) | ciphertext | tag, decrypted in place. Inline: it is
// the common case, and a call of its own measured 25 instructions a record.
inline Status RecordOpener::open_aead(const RecordView& r, std::uint8_t* fragment,
                                      std::span<std::uint8_t>& inner) noexcept {
  const RecordCipherInfo& c = crypto_->info();
  const std::size_t fragment_len = r.fragment.size();
  if (fragment_len < c.explicit_nonce_len + c.tag_len) {
    return Error::kMalformed;
  }
  const std::size_t n = fragment_len - c.explicit_nonce_len - c.tag_len;
  const std::uint64_t es = epoch_seq(r.epoch, r.sequence);
  std::uint8_t nonce[12];
  crypto_->nonce(es, fragment, nonce);
  std::uint8_t aad[kMaxAadSize];
  const std::size_t aad_len = build_aad(es, r.type, r.version, options_.cid.bytes(), n, aad);
  std::uint8_t* body = fragment + c.explicit_nonce_len;
  if (Status s =
          crypto_->aead->open(nonce, {aad, aad_len}, {body, n}, {body, n}, {body + n, c.tag_len});
      !s) {
    return s.error();
  }
  inner = std::span<std::uint8_t>(body, n);
  return {};
}

Result<OpenedRecord> RecordOpener::open_record(std::span<std::uint8_t> bytes) noexcept {
  const std::span<const std::uint8_t> cid = options_.cid.bytes();
  Result<RecordView> parsed = parse_record(bytes, cid.size());
  if (!parsed) {
    return parsed.error();
  }
  const RecordView& r = *parsed;
  if ((r.type == ContentType::kTls12Cid) != !cid.empty()) {
    return Error::kMalformed;
  }
  if (r.epoch != epoch_ || (!cid.empty() && !wireseal::detail::ct_equal(r.cid, cid))) {
    return Error::kWrongContext;
  }
  if (!window_.is_fresh(r.sequence)) {
    return Error::kReplay;  // before any cryptography, as RFC 6347 §4.1.2.6 suggests
  }
  std::uint8_t* fragment = bytes.data() + r.header.size();
  std::span<std::uint8_t> inner;
  Status opened;
  switch (crypto_->info().kind) {
    case CipherKind::kAead:
      opened = open_aead(r, fragment, inner);
      break;
    case CipherKind::kCbc:
      opened = open_cbc(r, fragment, inner);
      break;
    case CipherKind::kNull:
      opened = open_null(r, fragment, inner);
      break;
  }
  if (!opened) {
    return opened.error();
  }
  // Authenticated: the plaintext is the caller's now, and no longer a secret of the keys.
  WS_CT_DECLASSIFY(inner.data(), inner.size());
  ContentType type = r.type;
  if (!cid.empty()) {
    Result<ContentType> real = strip_cid_inner(inner);
    if (!real) {
      return real.error();
    }
    type = *real;
  }
  window_.mark(r.sequence);
  return OpenedRecord{type, r.epoch, r.sequence, inner, r.record.size()};
}

// open_cbc: IV | E(plaintext | MAC | padding), or with RFC 7366 IV | E(plaintext | padding) |
// MAC. The whole fragment is wiped when a check fails.
Status RecordOpener::open_cbc(const RecordView& r, std::uint8_t* fragment,
                              std::span<std::uint8_t>& inner) noexcept {
  const std::size_t mac_len = crypto_->info().tag_len;
  const std::size_t fragment_len = r.fragment.size();
  const std::uint64_t es = epoch_seq(r.epoch, r.sequence);
  const std::span<const std::uint8_t> cid = options_.cid.bytes();
  const std::span<const std::uint8_t, 16> iv(fragment, kCbcIvSize);
  std::uint8_t* body = fragment + kCbcIvSize;
  std::uint8_t aad[kMaxAadSize];
  if (options_.encrypt_then_mac) {
    if (fragment_len < kCbcIvSize + 16 + mac_len ||
        (fragment_len - kCbcIvSize - mac_len) % 16 != 0) {
      return Error::kMalformed;
    }
    const std::size_t enc_len = fragment_len - kCbcIvSize - mac_len;
    const std::size_t aad_len = build_aad(es, r.type, r.version, cid, kCbcIvSize + enc_len, aad);
    if (!hmac_matches(*crypto_->hmac, {aad, aad_len}, {fragment, kCbcIvSize + enc_len},
                      {body + enc_len, mac_len})) {
      secure_wipe(fragment, fragment_len);
      return Error::kAuthFailed;
    }
    (void)crypto_->cbc->decrypt(iv, {body, enc_len}, {body, enc_len});
    // The MAC already vouched for the bytes, so they are no secret of the keys any more: the
    // padding can be checked plainly.
    WS_CT_DECLASSIFY(body, enc_len);
    const std::size_t pad = body[enc_len - 1];
    bool pad_ok = pad + 1 <= enc_len;
    for (std::size_t i = 0; pad_ok && i <= pad; ++i) {
      pad_ok = body[enc_len - 1 - i] == pad;
    }
    if (!pad_ok) {
      secure_wipe(fragment, fragment_len);
      return Error::kAuthFailed;
    }
    inner = std::span<std::uint8_t>(body, enc_len - pad - 1);
    return {};
  }
  const std::size_t min_len = (mac_len + 1 + 15) / 16 * 16;
  if (fragment_len < kCbcIvSize + min_len || (fragment_len - kCbcIvSize) % 16 != 0) {
    return Error::kMalformed;
  }
  const std::size_t enc_len = fragment_len - kCbcIvSize;
  (void)crypto_->cbc->decrypt(iv, {body, enc_len}, {body, enc_len});
  // The MAC covers the pseudo-header with the (secret) plaintext length: pass the prefix
  // without the length field and let the constant-time check append it.
  const std::size_t aad_len = build_aad(es, r.type, r.version, cid, 0, aad);
  Result<std::size_t> n =
      detail::cbc_open_mac_then_encrypt(*crypto_->hmac, {aad, aad_len - 2}, {body, enc_len});
  if (!n) {
    secure_wipe(fragment, fragment_len);
    return n.error();
  }
  inner = std::span<std::uint8_t>(body, *n);
  return {};
}

// open_null: plaintext | MAC.
Status RecordOpener::open_null(const RecordView& r, std::uint8_t* fragment,
                               std::span<std::uint8_t>& inner) noexcept {
  const std::size_t mac_len = crypto_->info().tag_len;
  const std::size_t fragment_len = r.fragment.size();
  if (fragment_len < mac_len) {
    return Error::kMalformed;
  }
  const std::size_t n = fragment_len - mac_len;
  std::uint8_t aad[kMaxAadSize];
  const std::size_t aad_len =
      build_aad(epoch_seq(r.epoch, r.sequence), r.type, r.version, options_.cid.bytes(), n, aad);
  if (!hmac_matches(*crypto_->hmac, {aad, aad_len}, {fragment, n}, {fragment + n, mac_len})) {
    return Error::kAuthFailed;
  }
  inner = std::span<std::uint8_t>(fragment, n);
  return {};
}

}  // namespace wireseal::dtls
