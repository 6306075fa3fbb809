#include "dtls_decrypt.h"

#include <cstdio>
#include <exception>

#include "wireseal/dtls/handshake/message.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record_cipher.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::cli {
namespace {

using dtls::ContentType;
using dtls::handshake_name;
using dtls::HandshakeFragment;
using dtls::HandshakeReader;
using dtls::HandshakeType;
using dtls::parse_client_hello;
using dtls::parse_server_hello;

std::string hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::string hex16(std::uint16_t value) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04X", value);
  return buf;
}

// looks_like_dtls: the datagram starts like a DTLS record header, a content type and a DTLS
// version (so DNS and other UDP traffic in the capture is ignored rather than reported as
// malformed). The header is not parsed here: a tls12_cid record's length comes after a
// connection ID whose size only the flow's hellos tell.
bool looks_like_dtls(std::span<const std::uint8_t> payload) noexcept {
  if (payload.size() < dtls::kHeaderSize || payload[0] < 20 || payload[0] > 25) {
    return false;
  }
  const auto version = static_cast<std::uint16_t>(payload[1] << 8 | payload[2]);
  return version == dtls::kDtls12Version || version == dtls::kDtls10Version;
}

// describe names what a known plaintext holds: handshake message names or the alert.
std::string describe(ContentType type, std::span<const std::uint8_t> plaintext) {
  std::string out;
  if (type == ContentType::kHandshake) {
    HandshakeReader reader(plaintext);
    while (!reader.done()) {
      const Result<HandshakeFragment> f = reader.next();
      if (!out.empty()) {
        out += ", ";
      }
      if (!f) {
        out += "malformed handshake fragment";
        break;
      }
      out += handshake_name(f->msg_type);
      if (!f->complete()) {
        out += " (fragment " + std::to_string(f->fragment_offset) + "+" +
               std::to_string(f->body.size()) + " of " + std::to_string(f->length) + ")";
      }
    }
  } else if (type == ContentType::kAlert && plaintext.size() == 2) {
    out = "alert level " + std::to_string(plaintext[0]) + " description " +
          std::to_string(plaintext[1]);
  }
  return out;
}

// cid_carried_by: the RFC 9146 connection ID in the records `sender` sends on the flow, the one
// its peer asked for in its hello (negotiated only when both hellos carry the extension);
// empty without.
std::span<const std::uint8_t> cid_carried_by(const FlowResult& fr, Peer sender) noexcept {
  if (!fr.client_hello || !fr.server_hello || !fr.client_hello->extensions.has_connection_id ||
      !fr.server_hello->extensions.has_connection_id) {
    return {};
  }
  return sender == Peer::kClient ? fr.server_hello->extensions.connection_id
                                 : fr.client_hello->extensions.connection_id;
}

// Session is the key state of the connection currently running on a flow.
struct Session {
  std::optional<dtls::RecordOpener> openers[2];  // by sender: client write, server write
  bool keys_attempted = false;
  std::string key_error;
};

class Decryptor {
 public:
  Decryptor(const io::KeyLog& keylog, DecryptReport& report) : keylog_(keylog), report_(report) {}

  void datagram(const io::UdpDatagram& d);

 private:
  void learn_from_handshake(std::size_t flow, const io::UdpDatagram& d,
                            std::span<const std::uint8_t> body);
  // keys_for makes sure the flow's epoch-1 openers exist; returns the error text if not.
  const std::string& keys_for(std::size_t flow);
  void open_protected(std::size_t flow, RecordResult& result);
  std::size_t add_flow_result(std::size_t flow);

  const io::KeyLog& keylog_;
  DecryptReport& report_;
  FlowTable table_;
  std::vector<Session> sessions_;
};

std::size_t Decryptor::add_flow_result(std::size_t flow) {
  while (report_.flows.size() <= flow) {
    const Flow& f = table_[report_.flows.size()];
    report_.flows.push_back(FlowResult{f.client, f.server, {}, {}, false, {}});
    sessions_.emplace_back();
  }
  return flow;
}

void Decryptor::datagram(const io::UdpDatagram& d) {
  if (!looks_like_dtls(d.payload)) {
    return;
  }
  const std::size_t flow = add_flow_result(table_.flow_of(d.source, d.destination));
  dtls::DatagramReader reader(
      d.payload, cid_carried_by(report_.flows[flow], table_.sender(flow, d.source)).size());
  while (!reader.done()) {
    const Result<dtls::RecordView> r = reader.next();
    if (!r) {
      report_.notes.push_back(
          "frame " + std::to_string(d.frame) + " (" + d.source.to_string() +
          "): malformed record, rest of datagram dropped: " + to_string(r.error()));
      ++report_.failed;
      break;
    }
    if (r->epoch == 0 && r->type == ContentType::kHandshake) {
      learn_from_handshake(flow, d, r->fragment);
    }
    RecordResult result{d.frame,
                        flow,
                        table_.sender(flow, d.source),
                        r->epoch,
                        r->sequence,
                        r->type,
                        RecordStatus::kPlaintext,
                        {},
                        {r->record.begin(), r->record.end()},
                        {},
                        {}};
    if (r->epoch == 0) {
      result.plaintext.assign(r->fragment.begin(), r->fragment.end());
      result.summary = describe(r->type, r->fragment);
    } else {
      open_protected(flow, result);
    }
    report_.records.push_back(std::move(result));
  }
}

void Decryptor::learn_from_handshake(std::size_t flow, const io::UdpDatagram& d,
                                     std::span<const std::uint8_t> body) {
  FlowResult& fr = report_.flows[flow];
  const std::string where = " (frame " + std::to_string(d.frame) + ")";
  HandshakeReader reader(body);
  while (!reader.done()) {
    const Result<HandshakeFragment> f = reader.next();
    if (!f) {
      fr.notes.push_back("malformed handshake fragment" + where);
      return;
    }
    const auto type = static_cast<HandshakeType>(f->msg_type);
    if (type != HandshakeType::kClientHello && type != HandshakeType::kServerHello) {
      continue;
    }
    if (!f->complete()) {
      fr.notes.push_back(std::string("fragmented ") + handshake_name(f->msg_type) + where +
                         ": reassembly is not supported");
      continue;
    }
    if (type == HandshakeType::kClientHello) {
      const Result<ClientHello> hello = parse_client_hello(f->body);
      if (!hello) {
        fr.notes.push_back("malformed ClientHello" + where);
        continue;
      }
      // A ClientHello with a new random after a ServerHello starts a new connection on the
      // same 4-tuple; the retransmitted ClientHello after HelloVerifyRequest keeps its random.
      if (fr.client_hello && fr.client_hello->random != hello->random) {
        fr.server_hello.reset();
        sessions_[flow] = Session{};
        fr.notes.push_back("new connection" + where);
      }
      fr.client_hello = *hello;
      table_.set_client(flow, d.source);
      fr.client = table_[flow].client;
      fr.server = table_[flow].server;
    } else {
      const Result<ServerHello> hello = parse_server_hello(f->body);
      if (!hello) {
        fr.notes.push_back("malformed ServerHello" + where);
        continue;
      }
      fr.server_hello = *hello;
      sessions_[flow] = Session{};  // keys follow the latest ServerHello
    }
  }
}

const std::string& Decryptor::keys_for(std::size_t flow) {
  Session& s = sessions_[flow];
  if (s.keys_attempted) {
    return s.key_error;
  }
  s.keys_attempted = true;
  FlowResult& fr = report_.flows[flow];
  if (!fr.client_hello || !fr.server_hello) {
    s.key_error =
        fr.client_hello ? "no ServerHello seen on this flow" : "no ClientHello seen on this flow";
    return s.key_error;
  }
  const std::optional<dtls::SuiteInfo> suite = dtls::suite_info(fr.server_hello->cipher_suite);
  if (!suite) {
    s.key_error = "cipher suite " + hex16(fr.server_hello->cipher_suite) + " is not supported";
    return s.key_error;
  }
  const io::KeyLog::MasterSecret* secret = keylog_.find(fr.client_hello->random);
  if (secret == nullptr) {
    s.key_error = "no CLIENT_RANDOM " + hex(fr.client_hello->random) + " in the key log";
    return s.key_error;
  }
  Result<dtls::KeyBlock> block = dtls::KeyBlock::derive(
      suite->cipher, suite->prf_hash, *secret, fr.client_hello->random, fr.server_hello->random);
  if (!block) {
    s.key_error = std::string("key derivation failed: ") + to_string(block.error());
    return s.key_error;
  }
  dtls::RecordOpenerOptions options;
  // EtM changes CBC records only; OpenSSL does not echo it for AEAD suites, but be safe.
  options.encrypt_then_mac = fr.server_hello->extensions.encrypt_then_mac &&
                             dtls::info(suite->cipher).kind == dtls::CipherKind::kCbc;
  // A capture may reorder records more than a live receiver would tolerate.
  options.replay_window = dtls::ReplayWindow::kMaxSize;
  try {
    options.cid = dtls::ConnectionId(cid_carried_by(fr, Peer::kClient));
    s.openers[0].emplace(suite->cipher, block->keys(dtls::Direction::kClientWrite), 1, options);
    options.cid = dtls::ConnectionId(cid_carried_by(fr, Peer::kServer));
    s.openers[1].emplace(suite->cipher, block->keys(dtls::Direction::kServerWrite), 1, options);
  } catch (const std::exception& e) {
    s.key_error = std::string("cannot key the record opener: ") + e.what();
    s.openers[0].reset();
    s.openers[1].reset();
    return s.key_error;
  }
  fr.have_keys = true;
  return s.key_error;
}

void Decryptor::open_protected(std::size_t flow, RecordResult& result) {
  result.status = RecordStatus::kFailed;
  ++report_.failed;
  if (result.epoch != 1) {
    result.error = "epoch " + std::to_string(result.epoch) + " (renegotiation) is not supported";
    return;
  }
  const std::string& key_error = keys_for(flow);
  if (!key_error.empty()) {
    result.error = key_error;
    return;
  }
  std::vector<std::uint8_t> buffer = result.record;  // RecordOpener decrypts in place
  dtls::RecordOpener& opener = *sessions_[flow].openers[result.sender == Peer::kClient ? 0 : 1];
  const Result<dtls::OpenedRecord> opened = opener.open(buffer);
  if (!opened) {
    result.error = to_string(opened.error());
    return;
  }
  --report_.failed;
  result.status = RecordStatus::kDecrypted;
  result.type = opened->type;
  result.plaintext.assign(opened->plaintext.begin(), opened->plaintext.end());
  result.summary = describe(result.type, result.plaintext);
}

}  // namespace

DecryptReport decrypt_datagrams(std::span<const io::UdpDatagram> datagrams,
                                const io::KeyLog& keylog, const DecryptOptions& options) {
  DecryptReport report;
  Decryptor decryptor(keylog, report);
  for (const io::UdpDatagram& d : datagrams) {
    if (options.port && d.source.port != *options.port && d.destination.port != *options.port) {
      continue;
    }
    decryptor.datagram(d);
  }
  return report;
}

Result<DecryptReport> decrypt_capture(std::span<const std::uint8_t> pcap, const io::KeyLog& keylog,
                                      const DecryptOptions& options) {
  Result<std::vector<io::UdpDatagram>> datagrams = io::read_udp_datagrams(pcap);
  if (!datagrams) {
    return datagrams.error();
  }
  return decrypt_datagrams(*datagrams, keylog, options);
}

const char* content_type_name(ContentType type) noexcept {
  switch (type) {
    case ContentType::kChangeCipherSpec:
      return "change_cipher_spec";
    case ContentType::kAlert:
      return "alert";
    case ContentType::kHandshake:
      return "handshake";
    case ContentType::kApplicationData:
      return "application_data";
    case ContentType::kHeartbeat:
      return "heartbeat";
    case ContentType::kTls12Cid:
      return "tls12_cid";
  }
  return "unknown";
}

}  // namespace wireseal::cli
