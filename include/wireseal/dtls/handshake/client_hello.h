#pragma once
// ClientHello (RFC 5246 §7.4.1.2, RFC 6347 §4.2.1): parsed as views into the message body,
// written from the same struct. Parsing never copies.

#include <cstdint>
#include <span>

#include "wireseal/dtls/handshake/extensions.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

inline constexpr std::size_t kMaxCookieSize = 255;  // DTLS 1.2: opaque cookie<0..2^8-1>

struct ClientHello {
  std::uint16_t version = 0;  // client_version: 0xFEFD for DTLS 1.2
  HelloRandom random{};
  std::span<const std::uint8_t> session_id;           // <0..32>
  std::span<const std::uint8_t> cookie;               // <0..255>, empty before HelloVerifyRequest
  U16List cipher_suites;                              // <2..2^16-2>
  std::span<const std::uint8_t> compression_methods;  // <1..2^8-1>
  HelloExtensions extensions;
};

// parse_client_hello reads a complete message body (the bytes after the 12-byte handshake
// header). kMalformed if a field breaks its length bounds, any length runs past the body, or
// bytes are left over.
Result<ClientHello> parse_client_hello(std::span<const std::uint8_t> body) noexcept;

// write_client_hello writes the body; kInvalidArgument for a field outside its bounds,
// kBufferTooSmall if `out` is short.
Result<std::size_t> write_client_hello(const ClientHello& hello,
                                       std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls
