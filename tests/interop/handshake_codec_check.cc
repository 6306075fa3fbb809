#include "handshake_codec_check.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <span>
#include <utility>

#include "wireseal/dtls/handshake/certificate.h"
#include "wireseal/dtls/handshake/certificate_request.h"
#include "wireseal/dtls/handshake/certificate_verify.h"
#include "wireseal/dtls/handshake/client_hello.h"
#include "wireseal/dtls/handshake/client_key_exchange.h"
#include "wireseal/dtls/handshake/hello_verify_request.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/dtls/handshake/new_session_ticket.h"
#include "wireseal/dtls/handshake/server_hello.h"
#include "wireseal/dtls/handshake/server_hello_done.h"
#include "wireseal/dtls/handshake/server_key_exchange.h"
#include "wireseal/dtls/handshake/transcript.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record.h"

namespace wireseal::interop {
namespace {

using Bytes = std::vector<std::uint8_t>;
using Span = std::span<const std::uint8_t>;
using dtls::HandshakeType;

using Message = PlainMessage;

// Reassembly keeps each (direction, message_seq)'s bytes until all have arrived (test-only:
// unbounded, out-of-order fragments and retransmissions welcome).
struct Partial {
  std::uint8_t type = 0;
  Bytes body;
  std::vector<bool> have;
  bool emitted = false;
};

std::vector<Message> reassemble(const std::vector<RelayedDatagram>& datagrams,
                                std::vector<std::string>& failures) {
  std::map<std::pair<bool, std::uint16_t>, Partial> partial;
  std::vector<Message> out;
  for (const RelayedDatagram& d : datagrams) {
    dtls::DatagramReader records(d.bytes);
    while (!records.done()) {
      const Result<dtls::RecordView> r = records.next();
      if (!r) {
        failures.push_back("unparseable record");
        break;
      }
      if (r->epoch != 0 || r->type != dtls::ContentType::kHandshake) {
        continue;
      }
      dtls::HandshakeReader fragments(r->fragment);
      while (!fragments.done()) {
        const Result<dtls::HandshakeFragment> f = fragments.next();
        if (!f) {
          failures.push_back("unparseable handshake fragment");
          break;
        }
        Partial& p = partial[{d.from_client, f->message_seq}];
        if (p.have.empty()) {
          p.type = f->msg_type;
          p.body.resize(f->length);
          p.have.assign(f->length, false);
        }
        if (p.emitted || p.body.size() != f->length) {
          continue;  // a retransmission
        }
        std::copy(f->body.begin(), f->body.end(),
                  p.body.begin() + static_cast<std::ptrdiff_t>(f->fragment_offset));
        std::fill_n(p.have.begin() + static_cast<std::ptrdiff_t>(f->fragment_offset),
                    f->body.size(), true);
        if (std::all_of(p.have.begin(), p.have.end(), [](bool b) { return b; })) {
          p.emitted = true;
          out.push_back({d.from_client, p.type, f->message_seq, p.body});
        }
      }
    }
  }
  return out;
}

// rewrite checks that `write` reproduces `body` exactly.
void rewrite(CodecTally& t, const Message& m,
             const std::function<Result<std::size_t>(std::span<std::uint8_t>)>& write) {
  ++t.rewritable;
  Bytes again(m.body.size() + 64);
  const Result<std::size_t> n = write(again);
  if (n && *n == m.body.size() && std::equal(m.body.begin(), m.body.end(), again.begin())) {
    ++t.identical;
    return;
  }
  t.failures.push_back(std::string(dtls::handshake_name(m.type)) +
                       ": written again, the bytes differ from OpenSSL's");
}

// check_one parses `m` with its codec; false if it does not parse.
bool check_one(CodecTally& t, const Message& m, std::uint16_t suite, dtls::KeyExchange kind) {
  const Span body(m.body);
  switch (static_cast<HandshakeType>(m.type)) {
    case HandshakeType::kClientHello: {
      const Result<dtls::ClientHello> h = dtls::parse_client_hello(body);
      if (h && !h->cipher_suites.contains(suite)) {
        t.failures.push_back("ClientHello: the suite asked for is not offered");
      }
      return static_cast<bool>(h);
    }
    case HandshakeType::kHelloVerifyRequest: {
      const Result<dtls::HelloVerifyRequest> h = dtls::parse_hello_verify_request(body);
      if (h) {
        rewrite(t, m, [&](std::span<std::uint8_t> out) {
          return dtls::write_hello_verify_request(*h, out);
        });
      }
      return static_cast<bool>(h);
    }
    case HandshakeType::kServerHello: {
      const Result<dtls::ServerHello> h = dtls::parse_server_hello(body);
      if (h && (h->cipher_suite != suite || h->version != 0xFEFD)) {
        t.failures.push_back("ServerHello: not DTLS 1.2 with the suite asked for");
      }
      return static_cast<bool>(h);
    }
    case HandshakeType::kCertificate: {
      const Result<dtls::Certificate> c = dtls::parse_certificate(body);
      if (c) {
        std::vector<Span> chain;
        dtls::CertificateWalker walker(*c);
        for (Span der; walker.next(der);) {
          chain.push_back(der);
        }
        if (chain.empty() && !m.from_client) {
          t.failures.push_back("Certificate: the server sent no certificate");
        }
        rewrite(t, m,
                [&](std::span<std::uint8_t> out) { return dtls::write_certificate(chain, out); });
      }
      return static_cast<bool>(c);
    }
    case HandshakeType::kServerKeyExchange: {
      const Result<dtls::ServerKeyExchange> k = dtls::parse_server_key_exchange(kind, body);
      if (k) {
        rewrite(t, m, [&](std::span<std::uint8_t> out) {
          return dtls::write_server_key_exchange(kind, *k, out);
        });
      }
      return static_cast<bool>(k);
    }
    case HandshakeType::kCertificateRequest: {
      const Result<dtls::CertificateRequest> r = dtls::parse_certificate_request(body);
      if (r) {
        rewrite(t, m, [&](std::span<std::uint8_t> out) {
          return dtls::write_certificate_request(*r, out);
        });
      }
      return static_cast<bool>(r);
    }
    case HandshakeType::kServerHelloDone:
      return static_cast<bool>(dtls::parse_server_hello_done(body));
    case HandshakeType::kClientKeyExchange: {
      const Result<dtls::ClientKeyExchange> k = dtls::parse_client_key_exchange(kind, body);
      if (k) {
        rewrite(t, m, [&](std::span<std::uint8_t> out) {
          return dtls::write_client_key_exchange(kind, *k, out);
        });
      }
      return static_cast<bool>(k);
    }
    case HandshakeType::kCertificateVerify: {
      const Result<dtls::CertificateVerify> v = dtls::parse_certificate_verify(body);
      if (v) {
        rewrite(t, m, [&](std::span<std::uint8_t> out) {
          return dtls::write_certificate_verify(*v, out);
        });
      }
      return static_cast<bool>(v);
    }
    case HandshakeType::kNewSessionTicket: {
      const Result<dtls::NewSessionTicket> n = dtls::parse_new_session_ticket(body);
      if (n) {
        rewrite(t, m, [&](std::span<std::uint8_t> out) {
          return dtls::write_new_session_ticket(*n, out);
        });
      }
      return static_cast<bool>(n);
    }
    default:
      t.failures.push_back(std::string("unexpected plaintext message ") +
                           dtls::handshake_name(m.type));
      return false;
  }
}

}  // namespace

CodecTally check_handshake_codec(const std::vector<RelayedDatagram>& datagrams, std::uint16_t suite,
                                 dtls::KeyExchange kind) {
  CodecTally t;
  for (const Message& m : reassemble(datagrams, t.failures)) {
    ++t.messages;
    t.plain.push_back(m);
    if (check_one(t, m, suite, kind)) {
      ++t.parsed;
    } else {
      t.failures.push_back(std::string(dtls::handshake_name(m.type)) + " from the " +
                           (m.from_client ? "client" : "server") + " does not parse");
    }
  }
  return t;
}

namespace {

// expect_finished compares the verify_data of the decrypted Finished `message` with what the
// transcript gives; adds it to the transcript after.
void expect_finished(dtls::Transcript& transcript, crypto::HashAlgorithm prf_hash,
                     std::span<const std::uint8_t, 48> master_secret, bool client,
                     std::span<const std::uint8_t> message, std::vector<std::string>& failures) {
  const char* who = client ? "client" : "server";
  dtls::HandshakeReader reader(message);
  const Result<dtls::HandshakeFragment> f = reader.next();
  if (!f || !f->complete() || f->msg_type != static_cast<std::uint8_t>(HandshakeType::kFinished) ||
      f->body.size() != dtls::kFinishedSize) {
    failures.push_back(std::string("the ") + who + "'s first encrypted record is not a Finished");
    return;
  }
  std::array<std::uint8_t, 48> hash{};
  std::array<std::uint8_t, dtls::kFinishedSize> expected{};
  if (!transcript.hash(hash) ||
      !dtls::finished_verify_data(prf_hash, master_secret, client,
                                  std::span(hash).first(transcript.hash_length()), expected) ||
      !std::equal(expected.begin(), expected.end(), f->body.begin())) {
    failures.push_back(std::string("the ") + who +
                       " Finished differs from wireseal's transcript and PRF");
  }
  transcript.add(f->msg_type, f->message_seq, f->body);
}

}  // namespace

namespace {

// transcript_start is the index of the ClientHello the ServerHello answers (RFC 6347 §4.2.6:
// not the first one, nor the HelloVerifyRequest), or plain.size().
std::size_t transcript_start(const CodecTally& codec) {
  std::size_t start = codec.plain.size();
  for (std::size_t i = 0; i < codec.plain.size(); ++i) {
    if (codec.plain[i].type == static_cast<std::uint8_t>(HandshakeType::kServerHello)) {
      break;
    }
    if (codec.plain[i].type == static_cast<std::uint8_t>(HandshakeType::kClientHello)) {
      start = i;
    }
  }
  return start;
}

}  // namespace

std::vector<std::string> check_finished(const CodecTally& codec, crypto::HashAlgorithm prf_hash,
                                        std::span<const std::uint8_t, 48> master_secret,
                                        std::span<const std::uint8_t> client_finished,
                                        std::span<const std::uint8_t> server_finished) {
  std::vector<std::string> failures;
  const std::size_t start = transcript_start(codec);
  if (start == codec.plain.size()) {
    return {"no ClientHello before the ServerHello"};
  }
  dtls::Transcript transcript;
  if (!transcript.select(prf_hash)) {
    return {"the suite's PRF hash is not SHA-256/384"};
  }
  // The client's last plaintext message precedes its Finished.
  std::size_t last_client = start;
  for (std::size_t i = start; i < codec.plain.size(); ++i) {
    if (codec.plain[i].from_client) {
      last_client = i;
    }
  }
  for (std::size_t i = start; i < codec.plain.size(); ++i) {
    const PlainMessage& m = codec.plain[i];
    transcript.add(m.type, m.message_seq, m.body);
    if (i == last_client) {
      expect_finished(transcript, prf_hash, master_secret, true, client_finished, failures);
    }
  }
  expect_finished(transcript, prf_hash, master_secret, false, server_finished, failures);
  return failures;
}

std::vector<std::string> check_psk_master_secret(const CodecTally& codec,
                                                 crypto::HashAlgorithm prf_hash, bool extended,
                                                 std::span<const std::uint8_t> psk,
                                                 std::span<const std::uint8_t, 48> logged) {
  const std::size_t start = transcript_start(codec);
  dtls::Transcript transcript;
  if (start == codec.plain.size() || !transcript.select(prf_hash)) {
    return {"no ClientHello before the ServerHello, or a PRF hash not SHA-256/384"};
  }
  std::array<std::uint8_t, 4 + 2 * 64> pre_master{};
  const Result<std::size_t> n = dtls::psk_pre_master_secret(psk, {}, pre_master);
  if (!n) {
    return {"psk_pre_master_secret failed"};
  }
  std::array<std::uint8_t, dtls::kMasterSecretSize> master{};
  Status derived = Error::kBadState;
  dtls::HelloRandom client_random{};
  dtls::HelloRandom server_random{};
  for (std::size_t i = start; i < codec.plain.size(); ++i) {
    const PlainMessage& m = codec.plain[i];
    transcript.add(m.type, m.message_seq, m.body);
    if (m.type == static_cast<std::uint8_t>(HandshakeType::kClientHello)) {
      client_random = dtls::parse_client_hello(m.body).value().random;
    } else if (m.type == static_cast<std::uint8_t>(HandshakeType::kServerHello)) {
      server_random = dtls::parse_server_hello(m.body).value().random;
    } else if (m.type == static_cast<std::uint8_t>(HandshakeType::kClientKeyExchange)) {
      const std::span<const std::uint8_t> secret(pre_master.data(), *n);
      if (extended) {
        std::array<std::uint8_t, 48> session_hash{};
        derived = transcript.hash(session_hash);
        derived = derived ? dtls::extended_master_secret(
                                prf_hash, secret,
                                std::span(session_hash).first(transcript.hash_length()), master)
                          : derived;
      } else {
        derived = dtls::master_secret(prf_hash, secret, client_random, server_random, master);
      }
      break;
    }
  }
  if (!derived || !std::equal(master.begin(), master.end(), logged.begin())) {
    return {"the master secret recomputed from the PSK differs from the logged one"};
  }
  return {};
}

}  // namespace wireseal::interop
