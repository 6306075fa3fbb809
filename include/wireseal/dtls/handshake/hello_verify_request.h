#pragma once
// HelloVerifyRequest (RFC 6347 §4.2.1): the server's stateless cookie challenge.

#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::dtls {

struct HelloVerifyRequest {
  std::uint16_t server_version = 0;      // 0xFEFF (DTLS 1.0) or 0xFEFD, RFC 6347 §4.2.1
  std::span<const std::uint8_t> cookie;  // <0..255>
};

// parse_hello_verify_request reads a complete body; kMalformed on bad lengths or bytes left.
Result<HelloVerifyRequest> parse_hello_verify_request(std::span<const std::uint8_t> body) noexcept;

// write_hello_verify_request writes the body (kInvalidArgument, kBufferTooSmall).
Result<std::size_t> write_hello_verify_request(const HelloVerifyRequest& request,
                                               std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls
