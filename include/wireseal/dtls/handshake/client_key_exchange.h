#pragma once
// ClientKeyExchange (RFC 5246 §7.4.7, RFC 8422 §5.7, RFC 4279 §2, RFC 5489 §2).

#include <cstdint>
#include <span>

#include "wireseal/dtls/handshake/key_exchange.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

struct ClientKeyExchange {
  std::span<const std::uint8_t> psk_identity;  // kPsk, kEcdhePsk <0..2^16-1>
  std::span<const std::uint8_t> public_key;    // kEcdhe, kEcdhePsk: the client's point <1..255>
};

// parse_client_key_exchange reads a complete body of `kind`; kMalformed on bad lengths, an
// empty point, or bytes left over.
Result<ClientKeyExchange> parse_client_key_exchange(KeyExchange kind,
                                                    std::span<const std::uint8_t> body) noexcept;

// write_client_key_exchange writes the body of `kind`.
Result<std::size_t> write_client_key_exchange(KeyExchange kind, const ClientKeyExchange& message,
                                              std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls
