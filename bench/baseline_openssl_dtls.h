#pragma once
// The OpenSSL baseline for dtls/ benchmarks: DTLS 1.2 record protection written the way a
// careful user of OpenSSL 3 EVP would write it, with the same record layout, header, nonce and
// additional data as wireseal's RecordSealer/RecordOpener (the suite checks that each side opens
// the other's records before timing).
//
// - AEADs (GCM, CCM, CCM_8, ChaCha20-Poly1305): one EVP_CIPHER_CTX per direction keyed once
//   (openssl::Aead); per record the nonce and AAD are built on the stack, then
//   EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, nonce), AAD update, data update, final, tag.
// - CBC: AES-CBC keyed once without EVP padding (openssl::Cipher), HMAC through one EVP_MAC_CTX
//   restarted per record with EVP_MAC_init(ctx, NULL, 0, NULL), the IV from a per-sealer
//   AES-128-CTR generator keyed once from RAND_bytes (CbcIvGenerator: the same kind of IV
//   source as wireseal's sealer, so both rows pay one AES block per IV, not a RAND_bytes call).
//   MAC-then-encrypt (RFC 5246) or encrypt-then-MAC (RFC 7366), minimal padding.
// - The header, explicit nonce / IV and tag are written straight into the record buffer and the
//   payload is protected in place, as wireseal does.
// - The opener checks epoch and a 64-record replay bitmap before any cryptography, like
//   RecordOpener. Its CBC checks (padding, MAC compare) are NOT constant-time: a baseline for
//   speed, not a hardened implementation (wireseal's are constant-time, which costs it a bit).
//
// Set-up failures throw std::runtime_error; per-record calls return 0 / false on failure.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "bench/baseline_openssl.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record_cipher.h"

namespace wireseal::bench::openssl {

// DtlsCrypto is the keyed state one direction needs (both the sealer and the opener use it).
class DtlsCrypto {
 public:
  DtlsCrypto(dtls::RecordCipher cipher, const dtls::DirectionKeys& keys, bool encrypt_then_mac);

  const dtls::RecordCipherInfo& info() const noexcept { return info_; }
  bool etm() const noexcept { return etm_; }
  // nonce builds the 12-byte AEAD nonce for epoch|seq (`explicit_nonce`: the record's 8 bytes).
  void nonce(std::uint64_t epoch_seq, const std::uint8_t* explicit_nonce,
             std::uint8_t* out) const noexcept;
  // mac computes HMAC(pseudo_header(13) || data) into `out` (info().tag_len bytes).
  bool mac(const std::uint8_t* pseudo_header, const std::uint8_t* data, std::size_t len,
           std::uint8_t* out) noexcept;

  std::optional<Aead> aead;
  std::optional<Cipher> cbc_enc;
  std::optional<Cipher> cbc_dec;

 private:
  dtls::RecordCipherInfo info_;
  bool etm_;
  std::uint8_t iv_[12] = {};
  MacCtx hmac_;
};

// CbcIvGenerator makes unpredictable CBC IVs as wireseal's RecordSealer does: E(K, nonce ||
// counter) with AES-128-CTR, K and the nonce drawn from RAND_bytes once at construction, the
// 64-bit counter incremented per IV. Per IV: one IV reset of a keyed EVP context and one
// block, no lock, no allocation.
class CbcIvGenerator {
 public:
  CbcIvGenerator();  // throws std::runtime_error when RAND_bytes or the cipher fails
  // next writes the next 16-byte IV to `iv`; false on failure.
  bool next(std::uint8_t* iv) noexcept;

 private:
  std::optional<Cipher> ctr_;
  std::uint8_t counter_block_[16] = {};  // nonce (8) || counter (8)
};

class DtlsSealer {
 public:
  DtlsSealer(dtls::RecordCipher cipher, const dtls::DirectionKeys& keys, std::uint16_t epoch,
             bool encrypt_then_mac, std::uint64_t first_sequence);

  // payload_offset is where the plaintext must sit in the record buffer (sealed in place).
  std::size_t payload_offset() const noexcept;
  std::size_t sealed_size(std::size_t plaintext_len) const noexcept;
  // seal protects the `n` plaintext bytes at out[payload_offset()] in place and writes the
  // whole record of `type` into out; returns its length, 0 on failure.
  std::size_t seal(std::uint8_t type, std::size_t n, std::span<std::uint8_t> out) noexcept;

 private:
  DtlsCrypto crypto_;
  std::optional<CbcIvGenerator> iv_generator_;  // CBC suites only
  std::uint16_t epoch_;
  std::uint64_t next_sequence_;
};

class DtlsOpener {
 public:
  DtlsOpener(dtls::RecordCipher cipher, const dtls::DirectionKeys& keys, std::uint16_t epoch,
             bool encrypt_then_mac);

  // open checks and decrypts the record at the start of `record` in place; on success the
  // plaintext is `record.subspan(*offset, *len)`.
  bool open(std::span<std::uint8_t> record, std::size_t* offset, std::size_t* len) noexcept;

 private:
  DtlsCrypto crypto_;
  std::uint16_t epoch_;
  // RFC 6347 §4.1.2.6 sliding window of 64 records.
  std::uint64_t top_ = 0;
  std::uint64_t bits_ = 0;
  bool seen_any_ = false;
};

}  // namespace wireseal::bench::openssl
