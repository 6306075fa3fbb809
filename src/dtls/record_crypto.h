#pragma once
// RecordCrypto: the keyed primitives behind a RecordSealer or RecordOpener, plus the pieces
// both directions share (nonce and additional-data construction, record sizes).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_cipher.h"

namespace wireseal::dtls::detail {

// The longest additional data: the RFC 9146 form with a 255-byte CID.
inline constexpr std::size_t kMaxAadSize = 23 + kMaxCidLength;

class RecordCrypto {
 public:
  RecordCrypto(RecordCipher cipher, const DirectionKeys& keys, crypto::Backend backend);
  // ~RecordCrypto wipes the implicit IV and the CBC IV generator's counter (the keyed
  // objects wipe their own keys).
  ~RecordCrypto();
  RecordCrypto(const RecordCrypto&) = delete;
  RecordCrypto& operator=(const RecordCrypto&) = delete;

  RecordCipher cipher() const noexcept { return cipher_; }
  const RecordCipherInfo& info() const noexcept { return info_; }

  // nonce builds the AEAD nonce for `epoch_seq` (epoch << 48 | sequence): salt || explicit for
  // GCM/CCM (explicit taken from the record when opening), IV XOR sequence for ChaCha20.
  void nonce(std::uint64_t epoch_seq, const std::uint8_t* explicit_nonce,
             std::uint8_t* out) const noexcept;

  // enable_iv_generator keys the CBC IV generator from the system DRBG (sealers only).
  void enable_iv_generator();
  // next_iv writes a fresh unpredictable 16-byte CBC IV: E(K_iv, nonce || counter) under a
  // random key used for nothing else (a CTR-mode DRBG without reseeding; 2^64 IVs per key).
  void next_iv(std::uint8_t* out) noexcept;

  std::optional<crypto::Aead> aead;
  std::optional<crypto::AesCbc> cbc;
  std::optional<crypto::Hmac> hmac;

 private:
  RecordCipher cipher_;
  RecordCipherInfo info_;
  std::array<std::uint8_t, 12> iv_{};
  std::optional<crypto::AesCtr> iv_generator_;
  std::array<std::uint8_t, 16> iv_counter_{};
};

// build_aad writes the additional data (AEAD) or MAC pseudo-header (CBC, NULL) for a record
// and returns its length: seq_num || type || version || length (13 bytes), or with a CID the
// RFC 9146 form seq_num_placeholder || tls12_cid || cid_length || tls12_cid || version ||
// epoch || sequence || cid || length.
std::size_t build_aad(std::uint64_t epoch_seq, ContentType type, std::uint16_t version,
                      std::span<const std::uint8_t> cid, std::size_t length,
                      std::uint8_t* out) noexcept;

// cbc_open_mac_then_encrypt checks and strips the MAC and padding of a decrypted MtE record
// `data` (plaintext | MAC | padding) in constant time with respect to the padding. The MAC
// covers `aad_prefix` (build_aad's output without its 2-byte length) followed by the length
// and the plaintext. Returns the plaintext length, or kAuthFailed.
Result<std::size_t> cbc_open_mac_then_encrypt(const crypto::Hmac& hmac,
                                              std::span<const std::uint8_t> aad_prefix,
                                              std::span<const std::uint8_t> data) noexcept;

}  // namespace wireseal::dtls::detail
