// What both flows share for session resumption (RFC 5246 §7.3, RFC 5077): turning this
// handshake into a Session, taking a saved one back, and the server's ticket and cache.
#include <algorithm>
#include <new>

#include "endpoint_state.h"
#include "wireseal/dtls/handshake/new_session_ticket.h"

namespace wireseal::dtls::detail {

Result<Session> current_session(const EndpointState& s) noexcept {
  try {
    Session out = s.session;
    out.cipher_suite = s.suite->code;
    out.extended_master_secret = s.negotiated.extended_master_secret;
    out.peer_auth = s.suite->auth == SuiteAuth::kPsk ? PeerAuth::kPsk : s.negotiated.peer_auth;
    out.master_secret = s.master_secret;
    if (!s.peer_chain.empty()) {
      out.peer_certificate = s.peer_chain.front();
    }
    return out;
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
}

Status restore_session(EndpointState& s, const Session& saved) noexcept {
  const CipherSuite* suite = find_cipher_suite(saved.cipher_suite);
  const std::optional<SuiteInfo> info = suite_info(saved.cipher_suite);
  if (suite == nullptr || !info) {
    return Error::kInvalidArgument;
  }
  s.suite = suite;
  s.cipher = info->cipher;
  s.prf_hash = info->prf_hash;
  s.master_secret = saved.master_secret;
  s.negotiated.suite = suite;
  s.negotiated.extended_master_secret = saved.extended_master_secret;
  s.negotiated.peer_auth = saved.peer_auth;
  s.negotiated.resumed = true;
  log_keys(s);
  try {
    s.peer_chain.clear();
    if (!saved.peer_certificate.empty()) {
      s.peer_chain.push_back(saved.peer_certificate);
    }
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  return {};
}

Status send_new_session_ticket(EndpointState& s) noexcept {
  const EndpointConfig& c = *s.config;
  std::vector<std::uint8_t> ticket;
  // RFC 5077 §3.3: a server that cannot issue the ticket it promised sends an empty one.
  if (const Result<Session> session = current_session(s); session) {
    try {
      ticket.resize(c.session_ticket_keys->sealed_size(*session));
    } catch (const std::bad_alloc&) {
      return Error::kOutOfMemory;
    }
    const Result<std::size_t> n = c.session_ticket_keys->seal(*session, c.random, ticket);
    ticket.resize(n ? *n : 0);
  }
  const auto hint = static_cast<std::uint32_t>(
      std::clamp<std::int64_t>(c.ticket_lifetime_hint.count(), 0, 0xffffffff));
  const NewSessionTicket message{hint, ticket};
  return send_message(
      s, HandshakeType::kNewSessionTicket, 0,
      [&message](std::span<std::uint8_t> out) { return write_new_session_ticket(message, out); });
}

void remember_session(EndpointState& s) noexcept {
  SessionCache* cache = s.config->session_cache.get();
  if (cache == nullptr || s.session.id_size == 0 || s.negotiated.resumed) {
    return;
  }
  if (const Result<Session> session = current_session(s); session) {
    (void)cache->store(s.now, *session);  // a session not cached is only one not resumed
  }
}

}  // namespace wireseal::dtls::detail
