#pragma once
// Record ciphers: the part of a DTLS 1.2 cipher suite that protects records.
//
// A cipher suite names key exchange, authentication, bulk cipher and PRF hash; only the last
// two matter to the record layer. RecordCipher is that part, and suite_record_cipher() maps
// IANA suite numbers onto it, so the record layer stays independent of the handshake.

#include <cstddef>
#include <cstdint>
#include <optional>

#include "wireseal/crypto/hmac.h"

namespace wireseal::dtls {

enum class RecordCipher : std::uint8_t {
  kAes128Gcm,  // RFC 5288: 4-byte implicit salt + 8-byte explicit nonce, 16-byte tag
  kAes256Gcm,
  kAes128Ccm,   // RFC 6655 / RFC 7251: like GCM, 16-byte tag
  kAes128Ccm8,  // 8-byte tag
  kAes256Ccm,
  kAes256Ccm8,
  kChaCha20Poly1305,  // RFC 7905: nonce = 12-byte IV XOR padded sequence, no explicit part
  kAes128CbcSha1,     // RFC 5246 block ciphers: MAC-then-encrypt, or encrypt-then-MAC (RFC 7366)
  kAes256CbcSha1,
  kAes128CbcSha256,
  kAes256CbcSha256,
  kAes256CbcSha384,
  kNullSha1,  // NULL cipher with HMAC: integrity only, for tests
  kNullSha256,
};

enum class CipherKind : std::uint8_t { kAead, kCbc, kNull };

// RecordCipherInfo is what the record layer and the key block need to know about a cipher.
struct RecordCipherInfo {
  CipherKind kind;
  std::size_t enc_key_len;         // bulk cipher key (0 for NULL)
  std::size_t mac_key_len;         // HMAC key (0 for AEADs)
  std::size_t fixed_iv_len;        // implicit IV from the key block (4 GCM/CCM, 12 ChaCha, 0 CBC)
  std::size_t explicit_nonce_len;  // per record: 8 GCM/CCM, 0 ChaCha, 16 (the IV) CBC, 0 NULL
  std::size_t tag_len;             // AEAD tag or MAC length
  crypto::HashAlgorithm mac_hash;  // CBC/NULL only
  const char* name;
};

// info returns the parameters of `cipher`.
const RecordCipherInfo& info(RecordCipher cipher) noexcept;

// SuiteInfo is what a cipher suite number means to the record layer and key derivation.
struct SuiteInfo {
  RecordCipher cipher;
  crypto::HashAlgorithm prf_hash;  // TLS 1.2 PRF hash (SHA-256 or SHA-384)
};

// suite_info maps an IANA TLS cipher suite number (e.g. 0xC02B
// TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256) to its record cipher; nullopt if unsupported.
std::optional<SuiteInfo> suite_info(std::uint16_t suite) noexcept;

}  // namespace wireseal::dtls
