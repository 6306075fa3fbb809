// The client side of the full handshake (RFC 5246 §7.3, RFC 6347 §4.2):
//
//   ClientHello            →
//                          ←  HelloVerifyRequest (optional: ClientHello again, with the cookie)
//                          ←  ServerHello, Certificate*, ServerKeyExchange*,
//                             CertificateRequest*, ServerHelloDone
//   Certificate*, ClientKeyExchange, CertificateVerify*, [ChangeCipherSpec], Finished  →
//                          ←  NewSessionTicket*, [ChangeCipherSpec], Finished
//
// and, when the server resumes the session we offered (RFC 5246 §7.3, RFC 5077 §3.1):
//
//   ClientHello (session ID and/or ticket)  →
//                          ←  ServerHello (our session ID), NewSessionTicket*,
//                             [ChangeCipherSpec], Finished
//   [ChangeCipherSpec], Finished  →
//
// One do_* function per message received, each checking the message against what we offered.
#include <algorithm>
#include <array>
#include <new>

#include "endpoint_state.h"
#include "wireseal/dtls/handshake/certificate.h"
#include "wireseal/dtls/handshake/certificate_request.h"
#include "wireseal/dtls/handshake/certificate_verify.h"
#include "wireseal/dtls/handshake/client_hello.h"
#include "wireseal/dtls/handshake/client_key_exchange.h"
#include "wireseal/dtls/handshake/hello_verify_request.h"
#include "wireseal/dtls/handshake/new_session_ticket.h"
#include "wireseal/dtls/handshake/server_hello.h"
#include "wireseal/dtls/handshake/server_hello_done.h"
#include "wireseal/dtls/handshake/server_key_exchange.h"
#include "wireseal/dtls/record.h"

namespace wireseal::dtls::detail {

namespace {

constexpr std::array<std::uint8_t, 1> kNullCompression{0};
constexpr std::array<std::uint8_t, 1> kUncompressedPoints{0};

bool contains(const std::vector<std::uint16_t>& list, std::uint16_t value) noexcept {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool offers_any(const EndpointState& s, bool (*pred)(const CipherSuite&)) noexcept {
  return std::any_of(s.suites.begin(), s.suites.end(), [pred](std::uint16_t code) {
    const CipherSuite* suite = find_cipher_suite(code);
    return suite != nullptr && pred(*suite);
  });
}

bool is_ecdhe(const CipherSuite& suite) noexcept { return suite.key_exchange != KeyExchange::kPsk; }
bool is_certificate(const CipherSuite& suite) noexcept { return suite.auth != SuiteAuth::kPsk; }
bool is_cbc(const CipherSuite& suite) noexcept { return !suite.aead; }

// offers_ticket: the hello carries session_ticket (a ticket to resume, or a request for one).
bool offers_ticket(const EndpointState& s) noexcept {
  return s.config->session_tickets || (s.offered_session && !s.offered_session->ticket.empty());
}

std::span<const std::uint8_t> hello_session_id(const EndpointState& s) noexcept {
  return std::span(s.hello_session_id).first(s.hello_session_id_size);
}

Result<std::size_t> write_hello(const EndpointState& s, std::span<std::uint8_t> out) noexcept {
  const EndpointConfig& c = *s.config;
  ClientHello hello;
  hello.version = kDtls12Version;
  hello.random = s.client_random;
  hello.session_id = hello_session_id(s);
  hello.cookie = s.cookie;
  hello.cipher_suites = U16List(std::span<const std::uint16_t>(s.suites));
  hello.compression_methods = kNullCompression;
  HelloExtensions& e = hello.extensions;
  if (offers_any(s, is_ecdhe)) {
    e.supported_groups = U16List(std::span<const std::uint16_t>(s.groups));
    e.ec_point_formats = kUncompressedPoints;
  }
  if (offers_any(s, is_certificate)) {
    e.signature_algorithms = U16List(std::span<const std::uint16_t>(s.signature_schemes));
  }
  if (!c.srtp_profiles.empty()) {
    e.has_use_srtp = true;
    e.srtp_profiles = U16List(std::span<const std::uint16_t>(c.srtp_profiles));
    e.srtp_mki = c.srtp_mki;
  }
  e.alpn_protocols = s.alpn_offer;
  if (s.own_connection_id) {
    e.has_connection_id = true;
    e.connection_id = *s.own_connection_id;
  }
  if (offers_ticket(s)) {
    e.has_session_ticket = true;
    if (s.offered_session) {
      e.session_ticket = s.offered_session->ticket;
    }
  }
  e.encrypt_then_mac = offers_any(s, is_cbc);
  e.extended_master_secret = true;
  e.has_renegotiation_info = true;  // RFC 5746 §3.4: empty on the initial handshake
  if (!c.server_name.empty()) {
    e.has_server_name = true;
    e.host_name = std::span(reinterpret_cast<const std::uint8_t*>(c.server_name.data()),
                            c.server_name.size());
  }
  return write_client_hello(hello, out);
}

Status send_client_hello(EndpointState& s) noexcept {
  begin_flight(s);
  // RFC 6347 §4.2.1: the hello a HelloVerifyRequest answered stays out of the transcript.
  s.log.clear();
  if (const Status st =
          send_message(s, HandshakeType::kClientHello, 0,
                       [&s](std::span<std::uint8_t> out) { return write_hello(s, out); });
      !st) {
    return fail(s, {st.error(), AlertDescription::kInternalError, "cannot write the ClientHello"});
  }
  finish_flight(s, true);
  s.state = HandshakeState::kWaitServerHello;
  return {};
}

Status do_hello_verify_request(EndpointState& s, const HandshakeMessage& m) noexcept {
  const Result<HelloVerifyRequest> hvr = parse_hello_verify_request(m.body);
  if (!hvr) {
    return fail(
        s, {Error::kMalformed, AlertDescription::kDecodeError, "malformed HelloVerifyRequest"});
  }
  if (hvr->server_version != kDtls12Version && hvr->server_version != kDtls10Version) {
    return fail(s, {Error::kUnsupported, AlertDescription::kProtocolVersion,
                    "HelloVerifyRequest for an unknown DTLS version"});
  }
  s.cookie.assign(hvr->cookie.begin(), hvr->cookie.end());
  return send_client_hello(s);
}

// take_application_protocol settles ALPN: the server names one protocol, one we offered.
Status take_application_protocol(EndpointState& s, std::span<const std::uint8_t> list) noexcept {
  if (list.empty()) {
    return {};
  }
  AlpnWalker walker(list);
  std::span<const std::uint8_t> name;
  std::span<const std::uint8_t> extra;
  if (!walker.next(name) || walker.next(extra) || !alpn_lists_name(s.alpn_offer, name)) {
    return fail(s, {Error::kMalformed, AlertDescription::kIllegalParameter,
                    "the server chose an application protocol (ALPN) we did not offer"});
  }
  try {
    s.application_protocol.assign(name.begin(), name.end());
  } catch (const std::bad_alloc&) {
    return fail(s, {Error::kOutOfMemory, AlertDescription::kInternalError, "out of memory"});
  }
  return {};
}

// check_server_extensions refuses what we did not offer and settles what we did.
Status check_server_extensions(EndpointState& s, const HelloExtensions& e) noexcept {
  const EndpointConfig& c = *s.config;
  if ((e.has_session_ticket && !offers_ticket(s)) ||
      (e.has_connection_id && !s.own_connection_id) ||
      (!e.alpn_protocols.empty() && s.alpn_offer.empty()) ||
      (e.has_server_name && c.server_name.empty()) || (e.has_use_srtp && c.srtp_profiles.empty()) ||
      e.has_supported_versions) {
    return fail(s, {Error::kMalformed, AlertDescription::kUnsupportedExtension,
                    "the ServerHello carries an extension we did not offer"});
  }
  if (e.has_renegotiation_info && !e.renegotiated_connection.empty()) {
    return fail(s, {Error::kAuthFailed, AlertDescription::kHandshakeFailure,
                    "non-empty renegotiation_info on an initial handshake (RFC 5746)"});
  }
  s.secure_renegotiation = e.has_renegotiation_info;
  s.negotiated.extended_master_secret = e.extended_master_secret;
  if (!e.extended_master_secret && c.require_extended_master_secret) {
    return fail(s, {Error::kUnsupported, AlertDescription::kHandshakeFailure,
                    "the server does not support the extended master secret (RFC 7627)"});
  }
  s.negotiated.encrypt_then_mac = e.encrypt_then_mac && !s.suite->aead;
  if (e.has_use_srtp) {
    const bool mki_echoed =
        std::equal(e.srtp_mki.begin(), e.srtp_mki.end(), c.srtp_mki.begin(), c.srtp_mki.end());
    if (e.srtp_profiles.size() != 1 || !contains(c.srtp_profiles, e.srtp_profiles[0]) ||
        !mki_echoed) {
      return fail(s, {Error::kMalformed, AlertDescription::kIllegalParameter,
                      "the server chose an SRTP profile or MKI we did not offer"});
    }
    s.negotiated.srtp_profile = e.srtp_profiles[0];
  }
  s.ticket_expected = e.has_session_ticket;
  if (e.has_connection_id) {
    if (const Status st = take_connection_id(s, e.connection_id); !st) {
      return st;
    }
  }
  return take_application_protocol(s, e.alpn_protocols);
}

// resume_session continues the abbreviated handshake the server chose by echoing our
// session ID: the saved master secret keys it, and the server's Finished comes next.
Status resume_session(EndpointState& s, const ServerHello& hello) noexcept {
  const Session& saved = *s.offered_session;
  if (hello.cipher_suite != saved.cipher_suite) {
    return fail(s, {Error::kMalformed, AlertDescription::kIllegalParameter,
                    "the server resumed the session with another cipher suite"});
  }
  // RFC 7627 §5.3: a resumed session keeps the extended master secret it was made with.
  if (hello.extensions.extended_master_secret != saved.extended_master_secret) {
    return fail(s, {Error::kAuthFailed, AlertDescription::kHandshakeFailure,
                    "the server resumed the session with a different extended master secret"});
  }
  const Status restored = restore_session(s, saved);
  if (!restored) {
    return fail(s,
                {restored.error(), AlertDescription::kInternalError, "cannot resume the session"});
  }
  s.session = std::move(*s.offered_session);
  s.offered_session.reset();
  if (const Status st = install_keys(s); !st) {
    return st;
  }
  s.state = s.ticket_expected ? HandshakeState::kWaitNewSessionTicket
                              : HandshakeState::kWaitChangeCipherSpec;
  return {};
}

Status do_server_hello(EndpointState& s, const HandshakeMessage& m) noexcept {
  const Result<ServerHello> hello = parse_server_hello(m.body);
  if (!hello) {
    return fail(s, {Error::kMalformed, AlertDescription::kDecodeError, "malformed ServerHello"});
  }
  if (hello->version != kDtls12Version) {
    return fail(s, {Error::kUnsupported, AlertDescription::kProtocolVersion,
                    "the server chose a DTLS version other than 1.2"});
  }
  const CipherSuite* suite = find_cipher_suite(hello->cipher_suite);
  if (suite == nullptr || !contains(s.suites, hello->cipher_suite) ||
      hello->compression_method != 0) {
    return fail(s, {Error::kMalformed, AlertDescription::kIllegalParameter,
                    "the server chose a cipher suite or compression we did not offer"});
  }
  const std::optional<SuiteInfo> info = suite_info(suite->code);
  s.suite = suite;
  s.cipher = info->cipher;
  s.prf_hash = info->prf_hash;
  s.negotiated.suite = suite;
  if (const Status st = check_server_extensions(s, hello->extensions); !st) {
    return st;
  }
  s.server_random = hello->random;
  s.writer.set_plaintext_version(kDtls12Version);
  if (const Status st = log_message(s, m.msg_type, m.message_seq, m.body); !st) {
    return st;
  }
  const std::span<const std::uint8_t> offered_id = hello_session_id(s);
  if (s.offered_session && !offered_id.empty() &&
      std::equal(offered_id.begin(), offered_id.end(), hello->session_id.begin(),
                 hello->session_id.end())) {
    return resume_session(s, *hello);
  }
  s.offered_session.reset();
  s.session.id_size = hello->session_id.size();
  std::copy(hello->session_id.begin(), hello->session_id.end(), s.session.id.begin());
  s.state = suite->key_exchange == KeyExchange::kEcdhe ? HandshakeState::kWaitServerCertificate
                                                       : HandshakeState::kWaitServerKeyExchange;
  return {};
}

Status do_server_certificate(EndpointState& s, const HandshakeMessage& m) noexcept {
  if (const Status st = accept_peer_certificate(s, m.body); !st) {
    return st;
  }
  if (!key_fits_suite(s.peer_key->type(), s.suite->auth)) {
    return fail(s, {Error::kUnsupported, AlertDescription::kUnsupportedCertificate,
                    "the server's key does not match the cipher suite"});
  }
  s.state = HandshakeState::kWaitServerKeyExchange;
  return log_message(s, m.msg_type, m.message_seq, m.body);
}

// check_ecdh_params validates the server's group and creates our key share on it.
Status take_server_share(EndpointState& s, const ServerKeyExchange& ske) noexcept {
  const Result<crypto::NamedGroup> group = crypto::named_group(ske.named_group);
  if (!group || !contains(s.groups, ske.named_group)) {
    return fail(s, {Error::kMalformed, AlertDescription::kIllegalParameter,
                    "the server chose a group we did not offer"});
  }
  Result<crypto::KeyShare> share = crypto::KeyShare::generate(*group);
  if (!share) {
    return fail(s,
                {share.error(), AlertDescription::kInternalError, "cannot generate a key share"});
  }
  s.key_share.emplace(std::move(*share));
  s.negotiated.group = ske.named_group;
  return ecdh_premaster(s, ske.public_key);
}

Status do_server_key_exchange(EndpointState& s, const HandshakeMessage& m) noexcept {
  const KeyExchange kx = s.suite->key_exchange;
  const Result<ServerKeyExchange> ske = parse_server_key_exchange(kx, m.body);
  if (!ske) {
    return fail(s,
                {Error::kMalformed, AlertDescription::kDecodeError, "malformed ServerKeyExchange"});
  }
  if (kx == KeyExchange::kEcdhe) {
    // RFC 8422 §5.4: the signature covers both randoms and the ECDH parameters.
    std::array<std::uint8_t, 2 * kHelloRandomSize + 4 + 255> signed_content{};
    const std::size_t n = 2 * kHelloRandomSize + ske->signed_params.size();
    std::copy(s.client_random.begin(), s.client_random.end(), signed_content.begin());
    std::copy(s.server_random.begin(), s.server_random.end(),
              signed_content.begin() + kHelloRandomSize);
    std::copy(ske->signed_params.begin(), ske->signed_params.end(),
              signed_content.begin() + 2 * kHelloRandomSize);
    if (const Status st = verify_peer_signature(s, ske->signature_scheme,
                                                std::span(signed_content).first(n), ske->signature);
        !st) {
      return st;
    }
    s.negotiated.signature_scheme = ske->signature_scheme;
  }
  if (kx != KeyExchange::kPsk) {
    if (const Status st = take_server_share(s, *ske); !st) {
      return st;
    }
  }
  s.state = HandshakeState::kWaitServerHelloDone;
  return log_message(s, m.msg_type, m.message_seq, m.body);
}

Status do_certificate_request(EndpointState& s, const HandshakeMessage& m) noexcept {
  const Result<CertificateRequest> request = parse_certificate_request(m.body);
  if (!request) {
    return fail(
        s, {Error::kMalformed, AlertDescription::kDecodeError, "malformed CertificateRequest"});
  }
  s.peer_signature_schemes.clear();
  for (std::size_t i = 0; i < request->signature_algorithms.size(); ++i) {
    s.peer_signature_schemes.push_back(request->signature_algorithms[i]);
  }
  s.certificate_requested = true;
  return log_message(s, m.msg_type, m.message_seq, m.body);
}

Status send_client_certificate(EndpointState& s) noexcept {
  const EndpointConfig& c = *s.config;
  const std::span<const std::span<const std::uint8_t>> chain =
      c.certificate ? c.certificate->chain.certificates()
                    : std::span<const std::span<const std::uint8_t>>{};
  return send_message(s, HandshakeType::kCertificate, 0, [chain](std::span<std::uint8_t> out) {
    return write_certificate(chain, out);
  });
}

Status send_certificate_verify(EndpointState& s) noexcept {
  const crypto::PrivateKey& key = s.config->certificate->key;
  const std::uint16_t scheme = choose_signature_scheme(s, key, s.peer_signature_schemes);
  if (scheme == 0) {
    return fail(s, {Error::kUnsupported, AlertDescription::kHandshakeFailure,
                    "no signature scheme the server accepts fits our key"});
  }
  // RFC 5246 §7.4.8: the signature covers every handshake message so far.
  std::vector<std::uint8_t> signature(key.max_signature_size());
  const Result<std::size_t> n = sign_into(s, scheme, s.log, signature);
  if (!n) {
    return fail(s, {n.error(), AlertDescription::kInternalError, "cannot sign CertificateVerify"});
  }
  const CertificateVerify verify{scheme, std::span(signature).first(*n)};
  return send_message(
      s, HandshakeType::kCertificateVerify, 0,
      [&verify](std::span<std::uint8_t> out) { return write_certificate_verify(verify, out); });
}

// do_server_hello_done answers with our whole second flight.
Status do_server_hello_done(EndpointState& s, const HandshakeMessage& m) noexcept {
  if (!parse_server_hello_done(m.body)) {
    return fail(s,
                {Error::kMalformed, AlertDescription::kDecodeError, "malformed ServerHelloDone"});
  }
  if (const Status st = log_message(s, m.msg_type, m.message_seq, m.body); !st) {
    return st;
  }
  const KeyExchange kx = s.suite->key_exchange;
  if (kx != KeyExchange::kEcdhe) {
    if (const Status st = psk_premaster(s); !st) {
      return fail(s, {st.error(), AlertDescription::kInternalError, "cannot form the PSK secret"});
    }
  }
  begin_flight(s);
  const bool send_verify = s.certificate_requested && s.config->certificate.has_value();
  if (s.certificate_requested) {
    if (const Status st = send_client_certificate(s); !st) {
      return fail(s, {st.error(), AlertDescription::kInternalError, "cannot write Certificate"});
    }
  }
  const EndpointConfig& c = *s.config;
  ClientKeyExchange cke;
  cke.psk_identity = c.psk_identity;
  if (s.key_share) {
    cke.public_key = s.key_share->public_key();
  }
  if (const Status st = send_message(s, HandshakeType::kClientKeyExchange, 0,
                                     [kx, &cke](std::span<std::uint8_t> out) {
                                       return write_client_key_exchange(kx, cke, out);
                                     });
      !st) {
    return fail(s,
                {st.error(), AlertDescription::kInternalError, "cannot write ClientKeyExchange"});
  }
  if (const Status st = derive_master_secret(s); !st) {
    return st;
  }
  if (send_verify) {
    if (const Status st = send_certificate_verify(s); !st) {
      return st;
    }
  }
  if (const Status st = install_keys(s); !st) {
    return st;
  }
  if (const Status st = send_finished(s); !st) {
    return st;
  }
  finish_flight(s, true);
  s.state = s.ticket_expected ? HandshakeState::kWaitNewSessionTicket
                              : HandshakeState::kWaitChangeCipherSpec;
  return {};
}

Status do_new_session_ticket(EndpointState& s, const HandshakeMessage& m) noexcept {
  const Result<NewSessionTicket> ticket = parse_new_session_ticket(m.body);
  if (!ticket) {
    return fail(s,
                {Error::kMalformed, AlertDescription::kDecodeError, "malformed NewSessionTicket"});
  }
  // An empty ticket: the server issues none this time (RFC 5077 §3.3); a resumed session
  // keeps the ticket it was offered with.
  if (!ticket->ticket.empty()) {
    try {
      s.session.ticket.assign(ticket->ticket.begin(), ticket->ticket.end());
    } catch (const std::bad_alloc&) {
      return fail(s, {Error::kOutOfMemory, AlertDescription::kInternalError, "out of memory"});
    }
    s.session.ticket_lifetime_hint_seconds = ticket->lifetime_hint_seconds;
  }
  s.state = HandshakeState::kWaitChangeCipherSpec;
  return log_message(s, m.msg_type, m.message_seq, m.body);
}

// do_server_finished ends the handshake; after a resumption our Finished answers it.
Status do_server_finished(EndpointState& s, const HandshakeMessage& m) noexcept {
  if (const Status st = check_finished(s, m); !st) {
    return st;
  }
  if (s.negotiated.resumed) {
    begin_flight(s);
    if (const Status st = send_finished(s); !st) {
      return st;
    }
    finish_flight(s, false);  // the last flight: sent again when the server repeats its own
  }
  return become_connected(s);
}

Status unexpected(EndpointState& s) noexcept {
  return fail(s, {Error::kBadState, AlertDescription::kUnexpectedMessage,
                  "a handshake message the client did not expect now"});
}

}  // namespace

Status start_client(EndpointState& s) noexcept {
  s.config->random(s.client_random);
  if (s.offered_session) {
    // RFC 5077 §3.4: with a ticket and no session ID, a random ID lets us recognise the
    // server's acceptance by the echo.
    const Session& saved = *s.offered_session;
    if (saved.id_size != 0) {
      std::copy_n(saved.id.begin(), saved.id_size, s.hello_session_id.begin());
      s.hello_session_id_size = saved.id_size;
    } else {
      s.config->random(s.hello_session_id);
      s.hello_session_id_size = s.hello_session_id.size();
    }
  }
  return send_client_hello(s);
}

Status client_handle_message(EndpointState& s, const HandshakeMessage& m) noexcept {
  const auto type = static_cast<HandshakeType>(m.msg_type);
  switch (s.state) {
    case HandshakeState::kWaitServerHello:
      if (type == HandshakeType::kHelloVerifyRequest) {
        return do_hello_verify_request(s, m);
      }
      return type == HandshakeType::kServerHello ? do_server_hello(s, m) : unexpected(s);
    case HandshakeState::kWaitServerCertificate:
      return type == HandshakeType::kCertificate ? do_server_certificate(s, m) : unexpected(s);
    case HandshakeState::kWaitServerKeyExchange:
      if (type == HandshakeType::kServerHelloDone && s.suite->key_exchange == KeyExchange::kPsk) {
        return do_server_hello_done(s, m);  // RFC 4279 §2: no identity hint, no message
      }
      return type == HandshakeType::kServerKeyExchange ? do_server_key_exchange(s, m)
                                                       : unexpected(s);
    case HandshakeState::kWaitServerHelloDone:
      if (type == HandshakeType::kCertificateRequest && s.suite->auth != SuiteAuth::kPsk &&
          !s.certificate_requested) {
        return do_certificate_request(s, m);
      }
      return type == HandshakeType::kServerHelloDone ? do_server_hello_done(s, m) : unexpected(s);
    case HandshakeState::kWaitNewSessionTicket:
      return type == HandshakeType::kNewSessionTicket ? do_new_session_ticket(s, m) : unexpected(s);
    case HandshakeState::kWaitFinished:
      return type == HandshakeType::kFinished ? do_server_finished(s, m) : unexpected(s);
    default:
      return unexpected(s);
  }
}

}  // namespace wireseal::dtls::detail
