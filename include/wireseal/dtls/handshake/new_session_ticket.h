#pragma once
// NewSessionTicket (RFC 5077 §3.3): an opaque ticket the client presents to resume.

#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::dtls {

struct NewSessionTicket {
  std::uint32_t lifetime_hint_seconds = 0;  // 0: unspecified
  std::span<const std::uint8_t> ticket;     // <0..2^16-1>; empty: the server issues none
};

// parse_new_session_ticket reads a complete body; kMalformed on bad lengths or bytes left.
Result<NewSessionTicket> parse_new_session_ticket(std::span<const std::uint8_t> body) noexcept;

// write_new_session_ticket writes the body (kInvalidArgument, kBufferTooSmall).
Result<std::size_t> write_new_session_ticket(const NewSessionTicket& ticket,
                                             std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls
