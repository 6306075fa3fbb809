// The cipher suites the handshake engine negotiates: which key exchange and which
// authentication each one needs, and the names people type (IANA and OpenSSL spellings).
// The record protection of each suite is record_cipher.h's suite_info().
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "wireseal/dtls/handshake/key_exchange.h"

namespace wireseal::dtls {

// How the server proves who it is under a suite.
enum class SuiteAuth : std::uint8_t {
  kEcdsa,  // an ECDSA (or Ed25519, RFC 8422 §5.1.3) certificate signs the ECDH parameters
  kRsa,    // an RSA certificate signs the ECDH parameters
  kPsk,    // knowledge of the pre-shared key (RFC 4279, RFC 5489)
};

struct CipherSuite {
  std::uint16_t code;
  KeyExchange key_exchange;
  SuiteAuth auth;
  bool aead;
  const char* iana_name;     // "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
  const char* openssl_name;  // "ECDHE-ECDSA-AES128-GCM-SHA256"
};

// cipher_suites lists every suite the engine can negotiate (ECDHE and PSK key exchanges over
// every record cipher wireseal has; no RSA key transport, no NULL ciphers).
std::span<const CipherSuite> cipher_suites() noexcept;

// find_cipher_suite returns the suite with this code point, or nullptr.
const CipherSuite* find_cipher_suite(std::uint16_t code) noexcept;

// find_cipher_suite_by_name accepts the IANA or the OpenSSL name, case-insensitively.
const CipherSuite* find_cipher_suite_by_name(std::string_view name) noexcept;

// default_cipher_suites is the preference order used when the caller names none: AEAD only
// (GCM, ChaCha20-Poly1305, then 16-byte-tag CCM), certificate suites before PSK ones. CBC
// suites and 8-byte-tag CCM are negotiated only when configured.
std::span<const std::uint16_t> default_cipher_suites() noexcept;

}  // namespace wireseal::dtls
