// Fuzz target: every DTLS handshake-message parser (wireseal/dtls/handshake/). Input: a
// selector byte (dtls_handshake_codec.h), then the message body. Must never crash or read out
// of bounds; a handshake record's fragments go through the reassembler, which must stay in
// its storage; and what parses must write again: byte for byte for the messages whose encoding
// the fields determine, and for the hellos to bytes that parse to the same fields.
#include "dtls_handshake_codec.h"

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <vector>

#include "dtls/handshake/reassembler.h"
#include "fuzz_target.h"
#include "wireseal/dtls/handshake/certificate.h"
#include "wireseal/dtls/handshake/certificate_request.h"
#include "wireseal/dtls/handshake/certificate_verify.h"
#include "wireseal/dtls/handshake/client_hello.h"
#include "wireseal/dtls/handshake/client_key_exchange.h"
#include "wireseal/dtls/handshake/finished.h"
#include "wireseal/dtls/handshake/hello_verify_request.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/dtls/handshake/new_session_ticket.h"
#include "wireseal/dtls/handshake/server_hello.h"
#include "wireseal/dtls/handshake/server_hello_done.h"
#include "wireseal/dtls/handshake/server_key_exchange.h"

namespace {

using namespace wireseal;
using Span = std::span<const std::uint8_t>;
using fuzz::CodecKind;
using fuzz::require;

bool same(Span a, Span b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

bool same(const dtls::U16List& a, const dtls::U16List& b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) {
      return false;
    }
  }
  return true;
}

bool same(const dtls::HelloExtensions& a, const dtls::HelloExtensions& b) {
  return a.has_server_name == b.has_server_name && same(a.host_name, b.host_name) &&
         same(a.supported_groups, b.supported_groups) &&
         same(a.ec_point_formats, b.ec_point_formats) &&
         same(a.signature_algorithms, b.signature_algorithms) && a.has_use_srtp == b.has_use_srtp &&
         same(a.srtp_profiles, b.srtp_profiles) && same(a.srtp_mki, b.srtp_mki) &&
         same(a.alpn_protocols, b.alpn_protocols) && a.encrypt_then_mac == b.encrypt_then_mac &&
         a.extended_master_secret == b.extended_master_secret &&
         a.has_session_ticket == b.has_session_ticket && same(a.session_ticket, b.session_ticket) &&
         a.has_connection_id == b.has_connection_id && same(a.connection_id, b.connection_id) &&
         a.has_renegotiation_info == b.has_renegotiation_info &&
         same(a.renegotiated_connection, b.renegotiated_connection);
}

// Out is the writer's buffer: a message parsed from n bytes never needs more than n + the
// block length of an extensions vector the parse did not have.
std::vector<std::uint8_t>& out_buffer(std::size_t size) {
  static std::vector<std::uint8_t> out;
  out.assign(size + 2, 0);
  return out;
}

// canonical: writing the parsed message reproduces the body exactly.
template <class Write>
void canonical(Span body, Write write) {
  std::vector<std::uint8_t>& out = out_buffer(body.size());
  const Result<std::size_t> n = write(std::span<std::uint8_t>(out));
  require(n.has_value(), "a parsed message writes again");
  require(same(body, Span(out.data(), *n)), "write(parse(x)) == x");
}

// canonical_message: if `parse` accepts the body, `write` reproduces it exactly.
template <class Parse, class Write>
void canonical_message(Span body, Parse parse, Write write) {
  if (const auto m = parse(body)) {
    canonical(body, [&](std::span<std::uint8_t> out) { return write(*m, out); });
  }
}

void client_hello(Span body) {
  const Result<dtls::ClientHello> h = dtls::parse_client_hello(body);
  if (!h) {
    return;
  }
  std::vector<std::uint8_t>& out = out_buffer(body.size());
  const Result<std::size_t> n = dtls::write_client_hello(*h, out);
  require(n.has_value(), "a parsed ClientHello writes again");
  const Result<dtls::ClientHello> again = dtls::parse_client_hello(Span(out.data(), *n));
  require(again.has_value(), "a written ClientHello parses");
  require(again->version == h->version && again->random == h->random &&
              same(again->session_id, h->session_id) && same(again->cookie, h->cookie) &&
              same(again->cipher_suites, h->cipher_suites) &&
              same(again->compression_methods, h->compression_methods) &&
              same(again->extensions, h->extensions),
          "ClientHello fields survive a round trip");
}

void server_hello(Span body) {
  const Result<dtls::ServerHello> h = dtls::parse_server_hello(body);
  if (!h) {
    return;
  }
  std::vector<std::uint8_t>& out = out_buffer(body.size());
  const Result<std::size_t> n = dtls::write_server_hello(*h, out);
  require(n.has_value(), "a parsed ServerHello writes again");
  const Result<dtls::ServerHello> again = dtls::parse_server_hello(Span(out.data(), *n));
  require(again.has_value(), "a written ServerHello parses");
  require(again->version == h->version && again->random == h->random &&
              same(again->session_id, h->session_id) && again->cipher_suite == h->cipher_suite &&
              again->compression_method == h->compression_method &&
              same(again->extensions, h->extensions),
          "ServerHello fields survive a round trip");
}

void certificate(Span body) {
  const Result<dtls::Certificate> c = dtls::parse_certificate(body);
  if (!c) {
    return;
  }
  std::vector<Span> chain;
  dtls::CertificateWalker walker(*c);
  for (Span der; walker.next(der);) {
    chain.push_back(der);
  }
  canonical(body, [&](std::span<std::uint8_t> out) { return dtls::write_certificate(chain, out); });
}

void key_exchange(Span body, dtls::KeyExchange kind, bool server) {
  if (server) {
    canonical_message(
        body, [kind](Span b) { return dtls::parse_server_key_exchange(kind, b); },
        [kind](const dtls::ServerKeyExchange& m, std::span<std::uint8_t> out) {
          return dtls::write_server_key_exchange(kind, m, out);
        });
    return;
  }
  canonical_message(
      body, [kind](Span b) { return dtls::parse_client_key_exchange(kind, b); },
      [kind](const dtls::ClientKeyExchange& m, std::span<std::uint8_t> out) {
        return dtls::write_client_key_exchange(kind, m, out);
      });
}

// handshake_record walks the fragments of a record body and reassembles them in a small
// storage: the reassembler must stay inside it and release messages in order, whole.
void handshake_record(Span body) {
  std::array<std::uint8_t, 2048> storage{};
  dtls::detail::HandshakeReassembler reassembler(storage, 1024);
  dtls::HandshakeReader reader(body);
  std::size_t walked = 0;
  while (!reader.done()) {
    const Result<dtls::HandshakeFragment> f = reader.next();
    if (!f) {
      break;
    }
    walked += dtls::kHandshakeHeaderSize + f->body.size();
    require(walked <= body.size(), "fragments stay inside the record");
    require(f->fragment_offset + f->body.size() <= f->length, "a fragment lies inside its message");
    static_cast<void>(reassembler.add(*f));
    require(reassembler.bytes_held() <= storage.size(), "reassembly stays inside its storage");
    while (const std::optional<dtls::detail::HandshakeMessage> m = reassembler.ready()) {
      require(m->message_seq == reassembler.next_seq(), "messages are released in order");
      require(m->body.data() >= storage.data() &&
                  m->body.data() + m->body.size() <= storage.data() + storage.size(),
              "a released message lies in the storage");
      reassembler.release();
    }
  }
}

void extensions(Span block) {
  const Result<dtls::HelloExtensions> e = dtls::parse_hello_extensions(block);
  if (!e) {
    return;
  }
  std::vector<std::uint8_t>& out = out_buffer(block.size());
  const Result<std::size_t> n = dtls::write_hello_extensions(*e, out);
  require(n.has_value(), "parsed extensions write again");
  const Result<dtls::HelloExtensions> again =
      dtls::parse_hello_extensions(Span(out.data(), *n).subspan(2));
  require(again.has_value() && same(*again, *e), "extensions survive a round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) {
    return 0;
  }
  const Span body(data + 1, size - 1);
  switch (static_cast<CodecKind>(data[0] % fuzz::kMessageKinds)) {
    case CodecKind::kClientHello:
      client_hello(body);
      break;
    case CodecKind::kServerHello:
      server_hello(body);
      break;
    case CodecKind::kHelloVerifyRequest:
      canonical_message(body, dtls::parse_hello_verify_request, dtls::write_hello_verify_request);
      break;
    case CodecKind::kCertificate:
      certificate(body);
      break;
    case CodecKind::kServerKeyExchangeEcdhe:
      key_exchange(body, dtls::KeyExchange::kEcdhe, true);
      break;
    case CodecKind::kServerKeyExchangePsk:
      key_exchange(body, dtls::KeyExchange::kPsk, true);
      break;
    case CodecKind::kServerKeyExchangeEcdhePsk:
      key_exchange(body, dtls::KeyExchange::kEcdhePsk, true);
      break;
    case CodecKind::kCertificateRequest:
      canonical_message(body, dtls::parse_certificate_request, dtls::write_certificate_request);
      break;
    case CodecKind::kServerHelloDone:
      require(static_cast<bool>(dtls::parse_server_hello_done(body)) == body.empty(),
              "ServerHelloDone is exactly the empty body");
      break;
    case CodecKind::kClientKeyExchangeEcdhe:
      key_exchange(body, dtls::KeyExchange::kEcdhe, false);
      break;
    case CodecKind::kClientKeyExchangePsk:
      key_exchange(body, dtls::KeyExchange::kPsk, false);
      break;
    case CodecKind::kClientKeyExchangeEcdhePsk:
      key_exchange(body, dtls::KeyExchange::kEcdhePsk, false);
      break;
    case CodecKind::kCertificateVerify:
      canonical_message(body, dtls::parse_certificate_verify, dtls::write_certificate_verify);
      break;
    case CodecKind::kFinished:
      require(static_cast<bool>(dtls::parse_finished(body)) == (body.size() == 12),
              "Finished is exactly 12 bytes");
      break;
    case CodecKind::kNewSessionTicket:
      canonical_message(body, dtls::parse_new_session_ticket, dtls::write_new_session_ticket);
      break;
    case CodecKind::kHandshakeRecord:
      handshake_record(body);
      break;
    case CodecKind::kExtensions:
      extensions(body);
      break;
  }
  return 0;
}
