// The server side of the full handshake (RFC 5246 §7.3, RFC 6347 §4.2). Cookies are checked
// before an Endpoint exists (hello_verifier.h), so the ClientHello that reaches this flow is
// the one the handshake answers.
//
//   ClientHello  →
//                ←  ServerHello, Certificate*, ServerKeyExchange*, CertificateRequest*,
//                   ServerHelloDone
//   Certificate*, ClientKeyExchange, CertificateVerify*, [ChangeCipherSpec], Finished  →
//                ←  NewSessionTicket*, [ChangeCipherSpec], Finished
//
// or, when the client offers a session we still hold (by ID in the session cache, or in a
// ticket we sealed), the abbreviated handshake of RFC 5246 §7.3 and RFC 5077 §3.1:
//
//   ClientHello  →
//                ←  ServerHello, NewSessionTicket*, [ChangeCipherSpec], Finished
//   [ChangeCipherSpec], Finished  →
#include <algorithm>
#include <array>
#include <new>

#include "common/byte_cursor.h"
#include "endpoint_state.h"
#include "wireseal/dtls/handshake/certificate.h"
#include "wireseal/dtls/handshake/certificate_request.h"
#include "wireseal/dtls/handshake/certificate_verify.h"
#include "wireseal/dtls/handshake/client_hello.h"
#include "wireseal/dtls/handshake/client_key_exchange.h"
#include "wireseal/dtls/handshake/new_session_ticket.h"
#include "wireseal/dtls/handshake/server_hello.h"
#include "wireseal/dtls/handshake/server_key_exchange.h"
#include "wireseal/dtls/record.h"

namespace wireseal::dtls::detail {

namespace {

constexpr std::uint16_t kRenegotiationScsv = 0x00FF;  // RFC 5746 §3.3
constexpr std::array<std::uint8_t, 1> kUncompressedPoints{0};
constexpr std::array<std::uint8_t, 2> kCertificateTypes{kEcdsaSign, kRsaSign};
// RFC 5246 §7.4.1.4.1: a client without signature_algorithms accepts SHA-1 signatures.
constexpr std::array<std::uint16_t, 2> kSha1Schemes{0x0201, 0x0203};

// The client's offer, as the choices below need it.
struct Offer {
  const ClientHello& hello;
  std::vector<std::uint16_t> schemes;  // what the client accepts signatures with
};

// choose_group picks our first group the client offered (P-256 if it named none, RFC 8422 §4).
std::uint16_t choose_group(const EndpointState& s, const ClientHello& hello) noexcept {
  for (std::uint16_t group : s.groups) {
    if (hello.extensions.supported_groups.empty()
            ? group == 23
            : hello.extensions.supported_groups.contains(group)) {
      return group;
    }
  }
  return 0;
}

// choose_suite walks our preference order and takes the first suite the client offered that
// our identity can serve, settling the group and the signature scheme with it.
const CipherSuite* choose_suite(EndpointState& s, const Offer& offer) noexcept {
  for (std::uint16_t code : s.suites) {
    const CipherSuite* suite = find_cipher_suite(code);
    if (!offer.hello.cipher_suites.contains(code)) {
      continue;
    }
    const std::uint16_t group =
        suite->key_exchange == KeyExchange::kPsk ? 0 : choose_group(s, offer.hello);
    if (suite->key_exchange != KeyExchange::kPsk && group == 0) {
      continue;
    }
    std::uint16_t scheme = 0;
    if (suite->auth != SuiteAuth::kPsk) {
      scheme = choose_signature_scheme(s, s.config->certificate->key, offer.schemes);
      if (scheme == 0) {
        continue;
      }
    }
    s.negotiated.group = group;
    s.negotiated.signature_scheme = scheme;
    return suite;
  }
  return nullptr;
}

// choose_application_protocol takes our first ALPN protocol the client offers (RFC 7301 §3.2:
// none in common is fatal; a client that offers none, or a server with none, skips ALPN).
Status choose_application_protocol(EndpointState& s, std::span<const std::uint8_t> offer) noexcept {
  if (offer.empty() || s.config->alpn_protocols.empty()) {
    return {};
  }
  for (const std::string& name : s.config->alpn_protocols) {
    const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(name.data()),
                                              name.size());
    if (alpn_lists_name(offer, bytes)) {
      try {
        s.application_protocol = name;
      } catch (const std::bad_alloc&) {
        return fail(s, {Error::kOutOfMemory, AlertDescription::kInternalError, "out of memory"});
      }
      return {};
    }
  }
  return fail(s, {Error::kUnsupported, AlertDescription::kNoApplicationProtocol,
                  "no application protocol (ALPN) in common with the client"});
}

Status read_extensions(EndpointState& s, const ClientHello& hello) noexcept {
  const HelloExtensions& e = hello.extensions;
  const EndpointConfig& c = *s.config;
  if (e.has_renegotiation_info && !e.renegotiated_connection.empty()) {
    return fail(s, {Error::kAuthFailed, AlertDescription::kHandshakeFailure,
                    "non-empty renegotiation_info on an initial handshake (RFC 5746)"});
  }
  s.secure_renegotiation =
      e.has_renegotiation_info || hello.cipher_suites.contains(kRenegotiationScsv);
  s.peer_offered_ems = e.extended_master_secret;
  if (!e.extended_master_secret && c.require_extended_master_secret) {
    return fail(s, {Error::kUnsupported, AlertDescription::kHandshakeFailure,
                    "the client does not offer the extended master secret (RFC 7627)"});
  }
  s.peer_offered_etm = e.encrypt_then_mac;
  try {
    s.requested_server_name.assign(e.host_name.begin(), e.host_name.end());
  } catch (const std::bad_alloc&) {
    return fail(s, {Error::kOutOfMemory, AlertDescription::kInternalError, "out of memory"});
  }
  s.peer_sent_point_formats = !e.ec_point_formats.empty();
  if (const Status st = choose_application_protocol(s, e.alpn_protocols); !st) {
    return st;
  }
  if (e.has_connection_id && s.own_connection_id) {
    if (const Status st = take_connection_id(s, e.connection_id); !st) {
      return st;
    }
  }
  if (e.has_use_srtp) {
    for (std::uint16_t profile : c.srtp_profiles) {
      if (e.srtp_profiles.contains(profile)) {
        s.negotiated.srtp_profile = profile;
        break;
      }
    }
  }
  return {};
}

Status write_server_hello_message(EndpointState& s, std::span<const std::uint8_t> mki) noexcept {
  ServerHello hello;
  hello.version = kDtls12Version;
  hello.random = s.server_random;
  hello.cipher_suite = s.suite->code;
  hello.session_id = s.session.session_id();
  HelloExtensions& e = hello.extensions;
  e.has_session_ticket = s.issue_ticket;  // empty: a NewSessionTicket follows (RFC 5077 §3.2)
  if (s.negotiated.connection_id) {
    e.has_connection_id = true;
    e.connection_id = *s.own_connection_id;  // RFC 9146 §3: the CID we want to receive
  }
  e.has_renegotiation_info = s.secure_renegotiation;
  e.extended_master_secret = s.negotiated.extended_master_secret;
  e.encrypt_then_mac = s.negotiated.encrypt_then_mac;
  const std::array<std::uint16_t, 1> profile{s.negotiated.srtp_profile};
  if (s.negotiated.srtp_profile != 0) {
    e.has_use_srtp = true;
    e.srtp_profiles = profile;
    e.srtp_mki = mki;  // RFC 5764 §4.1.1: the server echoes the client's MKI
  }
  if (s.peer_sent_point_formats && s.suite->key_exchange != KeyExchange::kPsk) {
    e.ec_point_formats = kUncompressedPoints;
  }
  // The chosen protocol, as a one-name list: its length byte, then the name.
  std::array<std::uint8_t, 256> alpn{};
  if (!s.application_protocol.empty()) {
    alpn[0] = static_cast<std::uint8_t>(s.application_protocol.size());
    std::copy(s.application_protocol.begin(), s.application_protocol.end(), alpn.begin() + 1);
    e.alpn_protocols = std::span(alpn).first(1 + s.application_protocol.size());
  }
  return send_message(s, HandshakeType::kServerHello, 0, [&hello](std::span<std::uint8_t> out) {
    return write_server_hello(hello, out);
  });
}

Status write_server_key_exchange_message(EndpointState& s) noexcept {
  const KeyExchange kx = s.suite->key_exchange;
  const EndpointConfig& c = *s.config;
  ServerKeyExchange ske;
  ske.psk_identity_hint = c.psk_identity_hint;
  std::array<std::uint8_t, 4 + 97> params{};
  std::vector<std::uint8_t> signature;
  if (kx != KeyExchange::kPsk) {
    const Result<crypto::NamedGroup> group = crypto::named_group(s.negotiated.group);
    Result<crypto::KeyShare> share = crypto::KeyShare::generate(*group);
    if (!share) {
      return share.error();
    }
    s.key_share.emplace(std::move(*share));
    ske.named_group = s.negotiated.group;
    ske.public_key = s.key_share->public_key();
  }
  if (kx == KeyExchange::kEcdhe) {
    const Result<std::size_t> n = write_server_ecdh_params(ske.named_group, ske.public_key, params);
    if (!n) {
      return n.error();
    }
    std::array<std::uint8_t, 2 * kHelloRandomSize + params.size()> signed_content{};
    std::copy(s.client_random.begin(), s.client_random.end(), signed_content.begin());
    std::copy(s.server_random.begin(), s.server_random.end(),
              signed_content.begin() + kHelloRandomSize);
    std::copy_n(params.begin(), *n, signed_content.begin() + 2 * kHelloRandomSize);
    signature.resize(c.certificate->key.max_signature_size());
    const Result<std::size_t> sig =
        sign_into(s, s.negotiated.signature_scheme,
                  std::span(signed_content).first(2 * kHelloRandomSize + *n), signature);
    if (!sig) {
      return sig.error();
    }
    ske.signature_scheme = s.negotiated.signature_scheme;
    ske.signature = std::span(signature).first(*sig);
  }
  return send_message(
      s, HandshakeType::kServerKeyExchange, 0,
      [kx, &ske](std::span<std::uint8_t> out) { return write_server_key_exchange(kx, ske, out); });
}

Status send_server_flight(EndpointState& s, std::span<const std::uint8_t> mki) noexcept {
  const EndpointConfig& c = *s.config;
  const KeyExchange kx = s.suite->key_exchange;
  begin_flight(s);
  if (const Status st = write_server_hello_message(s, mki); !st) {
    return st;
  }
  if (s.suite->auth != SuiteAuth::kPsk) {
    const std::span<const std::span<const std::uint8_t>> chain =
        c.certificate->chain.certificates();
    if (const Status st = send_message(
            s, HandshakeType::kCertificate, 0,
            [chain](std::span<std::uint8_t> out) { return write_certificate(chain, out); });
        !st) {
      return st;
    }
  }
  if (kx != KeyExchange::kPsk || !c.psk_identity_hint.empty()) {
    if (const Status st = write_server_key_exchange_message(s); !st) {
      return st;
    }
  }
  s.certificate_requested = s.suite->auth != SuiteAuth::kPsk &&
                            (verifies_peer_by_certificate(c) || c.request_client_certificate ||
                             c.require_client_certificate);
  if (s.certificate_requested) {
    CertificateRequest request;
    request.certificate_types = kCertificateTypes;
    request.signature_algorithms = U16List(std::span<const std::uint16_t>(s.signature_schemes));
    if (const Status st = send_message(s, HandshakeType::kCertificateRequest, 0,
                                       [&request](std::span<std::uint8_t> out) {
                                         return write_certificate_request(request, out);
                                       });
        !st) {
      return st;
    }
  }
  if (const Status st = send_message(
          s, HandshakeType::kServerHelloDone, 0,
          [](std::span<std::uint8_t>) -> Result<std::size_t> { return std::size_t{0}; });
      !st) {
    return st;
  }
  finish_flight(s, true);
  return {};
}

// saved_session finds the session the client offers: in its ticket, else by its session ID.
std::optional<Session> saved_session(const EndpointState& s, const ClientHello& hello) noexcept {
  const EndpointConfig& c = *s.config;
  const HelloExtensions& e = hello.extensions;
  if (c.session_ticket_keys && e.has_session_ticket && !e.session_ticket.empty()) {
    if (Result<Session> opened = c.session_ticket_keys->open(e.session_ticket); opened) {
      return std::move(*opened);
    }
  }
  if (c.session_cache && !hello.session_id.empty()) {
    return c.session_cache->find(s.now, hello.session_id);
  }
  return std::nullopt;
}

// may_resume: the client still offers the session's suite, we still serve it, the extended
// master secret is used as when the session was made (RFC 7627 §5.3), and today's checks
// still accept the client the session saved (recheck_saved_peer sets how).
bool may_resume(const EndpointState& s, const ClientHello& hello, Session& saved) noexcept {
  return std::find(s.suites.begin(), s.suites.end(), saved.cipher_suite) != s.suites.end() &&
         hello.cipher_suites.contains(saved.cipher_suite) &&
         saved.extended_master_secret == s.peer_offered_ems && recheck_saved_peer(s, saved);
}

// resume answers with the abbreviated handshake's flight, ending in our Finished.
Status resume(EndpointState& s, const ClientHello& hello, const Session& saved,
              std::span<const std::uint8_t> mki) noexcept {
  const auto cannot = [&s](Status st) {
    return fail(s, {st.error(), AlertDescription::kInternalError, "cannot resume the session"});
  };
  if (const Status st = restore_session(s, saved); !st) {
    return cannot(st);
  }
  s.negotiated.encrypt_then_mac = s.peer_offered_etm && !s.suite->aead;
  // RFC 5077 §3.4: a ticket's acceptance is told by echoing the client's session ID.
  s.session.id_size = hello.session_id.size();
  std::copy(hello.session_id.begin(), hello.session_id.end(), s.session.id.begin());
  begin_flight(s);
  if (const Status st = write_server_hello_message(s, mki); !st) {
    return cannot(st);
  }
  if (s.issue_ticket) {
    if (const Status st = send_new_session_ticket(s); !st) {
      return cannot(st);
    }
  }
  if (const Status st = install_keys(s); !st) {
    return st;
  }
  if (const Status st = send_finished(s); !st) {
    return st;
  }
  finish_flight(s, true);
  s.state = HandshakeState::kWaitChangeCipherSpec;
  return {};
}

// full_handshake answers with ServerHello … ServerHelloDone under a suite chosen afresh.
Status full_handshake(EndpointState& s, const ClientHello& hello) noexcept {
  Offer offer{hello, {}};
  const U16List& schemes = hello.extensions.signature_algorithms;
  if (schemes.empty()) {
    offer.schemes.assign(kSha1Schemes.begin(), kSha1Schemes.end());
  }
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    offer.schemes.push_back(schemes[i]);
  }
  s.suite = choose_suite(s, offer);
  if (s.suite == nullptr) {
    return fail(s, {Error::kUnsupported, AlertDescription::kHandshakeFailure,
                    "no cipher suite, group and signature scheme in common with the client"});
  }
  const std::optional<SuiteInfo> info = suite_info(s.suite->code);
  s.cipher = info->cipher;
  s.prf_hash = info->prf_hash;
  s.negotiated.suite = s.suite;
  s.negotiated.extended_master_secret = s.peer_offered_ems;
  s.negotiated.encrypt_then_mac = s.peer_offered_etm && !s.suite->aead;
  // A client that takes a ticket keeps the session itself: no ID, nothing cached (as
  // BoringSSL does). Others get an ID to resume by, if there is a cache.
  if (s.config->session_cache && !s.issue_ticket) {
    s.config->random(s.session.id);
    s.session.id_size = s.session.id.size();
  }
  if (const Status st = send_server_flight(s, hello.extensions.srtp_mki); !st) {
    return fail(s,
                {st.error(), AlertDescription::kInternalError, "cannot write the server flight"});
  }
  s.state = s.certificate_requested ? HandshakeState::kWaitClientCertificate
                                    : HandshakeState::kWaitClientKeyExchange;
  return {};
}

// offers_dtls12: whether the client speaks DTLS 1.2. A DTLS 1.3 client lists its versions in
// supported_versions, which then overrides client_version (RFC 8446 §4.2.1); otherwise
// client_version is the highest it speaks, and DTLS versions count down (0xFEFD is 1.2,
// 0xFEFF 1.0), so anything above 1.2 speaks it too. nullopt: a malformed version list.
std::optional<bool> offers_dtls12(const ClientHello& hello) noexcept {
  const HelloExtensions& e = hello.extensions;
  if (!e.has_supported_versions) {
    return hello.version <= kDtls12Version;
  }
  ByteReader r(e.supported_versions);
  const std::span<const std::uint8_t> versions = r.vector8();
  if (!r.done() || versions.empty() || versions.size() % 2 != 0) {
    return std::nullopt;
  }
  return U16List::from_wire(versions).contains(kDtls12Version);
}

Status do_client_hello(EndpointState& s, const HandshakeMessage& m) noexcept {
  const Result<ClientHello> hello = parse_client_hello(m.body);
  if (!hello) {
    return fail(s, {Error::kMalformed, AlertDescription::kDecodeError, "malformed ClientHello"});
  }
  const std::optional<bool> dtls12 = offers_dtls12(*hello);
  if (!dtls12) {
    return fail(s, {Error::kMalformed, AlertDescription::kDecodeError,
                    "malformed supported_versions extension"});
  }
  if (!*dtls12) {
    return fail(s, {Error::kUnsupported, AlertDescription::kProtocolVersion,
                    "the client does not offer DTLS 1.2"});
  }
  if (std::find(hello->compression_methods.begin(), hello->compression_methods.end(), 0) ==
      hello->compression_methods.end()) {
    return fail(s, {Error::kMalformed, AlertDescription::kIllegalParameter,
                    "the client does not offer null compression"});
  }
  if (const Status st = read_extensions(s, *hello); !st) {
    return st;
  }
  s.client_random = hello->random;
  s.config->random(s.server_random);
  if (const Status st = log_message(s, m.msg_type, m.message_seq, m.body); !st) {
    return st;
  }
  // RFC 6347 §4.2.2: our first message takes the number of the hello it answers.
  s.next_send_seq = m.message_seq;
  s.issue_ticket = s.config->session_ticket_keys && hello->extensions.has_session_ticket;
  if (std::optional<Session> saved = saved_session(s, *hello);
      saved && may_resume(s, *hello, *saved)) {
    return resume(s, *hello, *saved, hello->extensions.srtp_mki);
  }
  return full_handshake(s, *hello);
}

Status do_client_certificate(EndpointState& s, const HandshakeMessage& m) noexcept {
  const Result<Certificate> certificate = parse_certificate(m.body);
  if (!certificate) {
    return fail(s, {Error::kMalformed, AlertDescription::kDecodeError, "malformed Certificate"});
  }
  if (certificate->certificate_list.empty()) {
    if (!s.config->allow_unauthenticated_peer || s.config->require_client_certificate) {
      return fail(s, {Error::kAuthFailed, AlertDescription::kHandshakeFailure,
                      "the client sent no certificate"});
    }
  } else {
    if (const Status st = accept_peer_certificate(s, m.body); !st) {
      return st;
    }
    s.client_sent_certificate = true;
  }
  s.state = HandshakeState::kWaitClientKeyExchange;
  return log_message(s, m.msg_type, m.message_seq, m.body);
}

Status do_client_key_exchange(EndpointState& s, const HandshakeMessage& m) noexcept {
  const KeyExchange kx = s.suite->key_exchange;
  const Result<ClientKeyExchange> cke = parse_client_key_exchange(kx, m.body);
  if (!cke) {
    return fail(s,
                {Error::kMalformed, AlertDescription::kDecodeError, "malformed ClientKeyExchange"});
  }
  if (kx != KeyExchange::kEcdhe) {
    const std::vector<std::uint8_t>& identity = s.config->psk_identity;
    if (!std::equal(cke->psk_identity.begin(), cke->psk_identity.end(), identity.begin(),
                    identity.end())) {
      return fail(s, {Error::kAuthFailed, AlertDescription::kUnknownPskIdentity,
                      "the client's PSK identity is not the configured one"});
    }
  }
  if (kx != KeyExchange::kPsk) {
    if (const Status st = ecdh_premaster(s, cke->public_key); !st) {
      return st;
    }
  }
  if (kx != KeyExchange::kEcdhe) {
    if (const Status st = psk_premaster(s); !st) {
      return fail(s, {st.error(), AlertDescription::kInternalError, "cannot form the PSK secret"});
    }
  }
  if (const Status st = log_message(s, m.msg_type, m.message_seq, m.body); !st) {
    return st;
  }
  if (const Status st = derive_master_secret(s); !st) {
    return st;
  }
  if (const Status st = install_keys(s); !st) {
    return st;
  }
  s.state = s.client_sent_certificate ? HandshakeState::kWaitCertificateVerify
                                      : HandshakeState::kWaitChangeCipherSpec;
  return {};
}

Status do_certificate_verify(EndpointState& s, const HandshakeMessage& m) noexcept {
  const Result<CertificateVerify> verify = parse_certificate_verify(m.body);
  if (!verify) {
    return fail(s,
                {Error::kMalformed, AlertDescription::kDecodeError, "malformed CertificateVerify"});
  }
  // RFC 5246 §7.4.8: over every handshake message before this one.
  if (const Status st =
          verify_peer_signature(s, verify->signature_scheme, s.log, verify->signature);
      !st) {
    return st;
  }
  s.state = HandshakeState::kWaitChangeCipherSpec;
  return log_message(s, m.msg_type, m.message_seq, m.body);
}

// do_client_finished ends the handshake: a full one with our last flight, a resumed one as is.
Status do_client_finished(EndpointState& s, const HandshakeMessage& m) noexcept {
  if (const Status st = check_finished(s, m); !st) {
    return st;
  }
  if (s.negotiated.resumed) {
    return become_connected(s);
  }
  begin_flight(s);
  if (s.issue_ticket) {
    if (const Status st = send_new_session_ticket(s); !st) {
      return fail(s,
                  {st.error(), AlertDescription::kInternalError, "cannot write NewSessionTicket"});
    }
  }
  if (const Status st = send_finished(s); !st) {
    return st;
  }
  finish_flight(s, false);  // the last flight: sent again only when the client repeats its own
  if (const Status st = become_connected(s); !st) {
    return st;
  }
  remember_session(s);
  return {};
}

Status unexpected(EndpointState& s) noexcept {
  return fail(s, {Error::kBadState, AlertDescription::kUnexpectedMessage,
                  "a handshake message the server did not expect now"});
}

}  // namespace

Status server_handle_message(EndpointState& s, const HandshakeMessage& m) noexcept {
  const auto type = static_cast<HandshakeType>(m.msg_type);
  switch (s.state) {
    case HandshakeState::kWaitClientHello:
      return type == HandshakeType::kClientHello ? do_client_hello(s, m) : unexpected(s);
    case HandshakeState::kWaitClientCertificate:
      return type == HandshakeType::kCertificate ? do_client_certificate(s, m) : unexpected(s);
    case HandshakeState::kWaitClientKeyExchange:
      return type == HandshakeType::kClientKeyExchange ? do_client_key_exchange(s, m)
                                                       : unexpected(s);
    case HandshakeState::kWaitCertificateVerify:
      return type == HandshakeType::kCertificateVerify ? do_certificate_verify(s, m)
                                                       : unexpected(s);
    case HandshakeState::kWaitFinished:
      return type == HandshakeType::kFinished ? do_client_finished(s, m) : unexpected(s);
    default:
      return unexpected(s);
  }
}

}  // namespace wireseal::dtls::detail
