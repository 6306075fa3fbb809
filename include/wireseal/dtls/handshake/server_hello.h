#pragma once
// ServerHello (RFC 5246 §7.4.1.3): the version, random, cipher suite and the extensions that
// change the record layer. Parsing never copies.

#include <cstdint>
#include <span>

#include "wireseal/dtls/handshake/message.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

struct ServerHello {
  std::uint16_t version;
  HelloRandom random;
  std::uint16_t cipher_suite;
  bool encrypt_then_mac;        // extension 22 echoed (RFC 7366): CBC records are EtM
  bool extended_master_secret;  // extension 23 echoed (RFC 7627)
};

// parse_server_hello reads a complete message body (the bytes after the 12-byte handshake
// header). kMalformed if any length runs past the body or bytes are left over.
Result<ServerHello> parse_server_hello(std::span<const std::uint8_t> body) noexcept;

}  // namespace wireseal::dtls
