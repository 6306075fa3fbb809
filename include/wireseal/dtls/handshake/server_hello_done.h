#pragma once
// ServerHelloDone (RFC 5246 §7.4.5): an empty body that ends the server's first flight.

#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::dtls {

// parse_server_hello_done accepts only the empty body (kMalformed otherwise).
Status parse_server_hello_done(std::span<const std::uint8_t> body) noexcept;

}  // namespace wireseal::dtls
