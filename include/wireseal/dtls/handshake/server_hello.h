#pragma once
// ServerHello (RFC 5246 §7.4.1.3): parsed as views into the message body, written from the
// same struct. Parsing never copies.

#include <cstdint>
#include <span>

#include "wireseal/dtls/handshake/extensions.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

struct ServerHello {
  std::uint16_t version = 0;  // server_version
  HelloRandom random{};
  std::span<const std::uint8_t> session_id;  // <0..32>
  std::uint16_t cipher_suite = 0;
  std::uint8_t compression_method = 0;
  HelloExtensions extensions;
};

// parse_server_hello reads a complete message body (the bytes after the 12-byte handshake
// header). kMalformed if a field breaks its bounds, any length runs past the body, or bytes
// are left over.
Result<ServerHello> parse_server_hello(std::span<const std::uint8_t> body) noexcept;

// write_server_hello writes the body; kInvalidArgument for a field outside its bounds,
// kBufferTooSmall if `out` is short.
Result<std::size_t> write_server_hello(const ServerHello& hello,
                                       std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls
