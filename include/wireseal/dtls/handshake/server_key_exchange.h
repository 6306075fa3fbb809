#pragma once
// ServerKeyExchange (RFC 5246 §7.4.3, RFC 8422 §5.4, RFC 4279 §2, RFC 5489 §2).

#include <cstdint>
#include <span>

#include "wireseal/dtls/handshake/key_exchange.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

struct ServerKeyExchange {
  std::span<const std::uint8_t> psk_identity_hint;  // kPsk, kEcdhePsk (may be empty)
  std::uint16_t named_group = 0;                    // kEcdhe, kEcdhePsk
  std::span<const std::uint8_t> public_key;         // the server's ECDH point <1..255>
  std::uint16_t signature_scheme = 0;               // kEcdhe: SignatureAndHashAlgorithm
  std::span<const std::uint8_t> signature;          // kEcdhe
  // Parsed only: the ServerECDHParams bytes (curve type, group, point), which the signature
  // covers after client_random and server_random.
  std::span<const std::uint8_t> signed_params;
};

// parse_server_key_exchange reads a complete body of `kind`; kMalformed on bad lengths, a
// curve type other than named_curve, an empty point or signature, or bytes left over.
Result<ServerKeyExchange> parse_server_key_exchange(KeyExchange kind,
                                                    std::span<const std::uint8_t> body) noexcept;

// write_server_ecdh_params writes ServerECDHParams (named_curve, group, point): the bytes the
// server signs, and part of the body write_server_key_exchange writes.
Result<std::size_t> write_server_ecdh_params(std::uint16_t named_group,
                                             std::span<const std::uint8_t> public_key,
                                             std::span<std::uint8_t> out) noexcept;

// write_server_key_exchange writes the body of `kind` (signed_params is not read).
Result<std::size_t> write_server_key_exchange(KeyExchange kind, const ServerKeyExchange& message,
                                              std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls
