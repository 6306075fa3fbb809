#pragma once
// ClientHello (RFC 5246 §7.4.1.2, RFC 6347 §4.2.1): the version and random; the other
// fields are length-checked and skipped (the handshake engine will grow this codec). Parsing never
// copies.

#include <cstdint>
#include <span>

#include "wireseal/dtls/handshake/message.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

struct ClientHello {
  std::uint16_t version;
  HelloRandom random;
};

// parse_client_hello reads a complete message body (the bytes after the 12-byte handshake
// header). kMalformed if any length runs past the body or bytes are left over.
Result<ClientHello> parse_client_hello(std::span<const std::uint8_t> body) noexcept;

}  // namespace wireseal::dtls
