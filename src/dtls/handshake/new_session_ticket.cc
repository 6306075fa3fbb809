// NewSessionTicket (RFC 5077 §3.3).
#include "wireseal/dtls/handshake/new_session_ticket.h"

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {

Result<NewSessionTicket> parse_new_session_ticket(std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  NewSessionTicket ticket;
  ticket.lifetime_hint_seconds = r.u32be();
  ticket.ticket = r.vector16();
  if (!r.done()) {
    return Error::kMalformed;
  }
  return ticket;
}

Result<std::size_t> write_new_session_ticket(const NewSessionTicket& ticket,
                                             std::span<std::uint8_t> out) noexcept {
  detail::MessageWriter w(out);
  w.u32(ticket.lifetime_hint_seconds);
  w.vector16(ticket.ticket);
  return w.finish();
}

}  // namespace wireseal::dtls
