// EndpointState: everything one association holds, shared by the record dispatch
// (endpoint.cc), the two handshake flows (client_flow.cc, server_flow.cc), the key schedule
// (key_schedule.cc) and peer authentication (peer_auth.cc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flight.h"
#include "reassembler.h"
#include "record_writer.h"
#include "wireseal/crypto/key_share.h"
#include "wireseal/crypto/signature.h"
#include "wireseal/dtls/endpoint.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record_cipher.h"
#include "wireseal/dtls/record_opener.h"

namespace wireseal::dtls::detail {

// The message each side waits for next. The client walks the left column of RFC 5246 §7.3,
// the server the right one; both end in kConnected.
enum class HandshakeState : std::uint8_t {
  kStart,
  // client
  kWaitServerHello,
  kWaitServerCertificate,
  kWaitServerKeyExchange,
  kWaitServerHelloDone,   // CertificateRequest may come first
  kWaitNewSessionTicket,  // the ServerHello promised a ticket (RFC 5077 §3.3)
  // server
  kWaitClientHello,
  kWaitClientCertificate,
  kWaitClientKeyExchange,
  kWaitCertificateVerify,
  // both
  kWaitChangeCipherSpec,
  kWaitFinished,
  kConnected,
  kClosed,
  kFailed,
};

// An event poll_output still has to hand out.
enum class PendingEvent : std::uint8_t { kNone, kConnected, kClosed, kFailed };

struct EndpointState {
  explicit EndpointState(std::shared_ptr<const EndpointConfig> c);

  std::shared_ptr<const EndpointConfig> config;
  Role role;
  HandshakeState state;

  // The configured lists, resolved once (the defaults filled in, unusable entries dropped).
  std::vector<std::uint16_t> suites;
  std::vector<std::uint16_t> groups;
  std::vector<std::uint16_t> signature_schemes;

  // --- time
  Instant now{};
  Instant started{};
  bool clock_started = false;
  bool timer_running = false;
  Instant deadline{};
  std::chrono::milliseconds retransmit_timeout{};
  std::size_t timeouts = 0;  // timer expiries since our current flight was built

  // --- handshake
  HelloRandom client_random{};
  HelloRandom server_random{};
  std::vector<std::uint8_t> cookie;
  std::uint16_t next_send_seq = 0;
  std::vector<std::uint8_t> log;  // every handshake message so far, DTLS-headed (§4.2.6)
  std::vector<std::uint8_t> reassembly_storage;
  HandshakeReassembler reassembler{{}, 0};
  Flight flight;
  bool flight_expects_reply = false;  // our last flight is answered (so its timer runs)
  // RFC 6347 §4.2.4: our flight is sent again when the peer repeats the flight it answers,
  // message_seq [answers_from, answers_to] — not for repeats of anything else, or two sides
  // answering each other's repeats would never stop.
  std::uint16_t answers_from = 1;
  std::uint16_t answers_to = 0;
  std::uint16_t peer_flight_start = 0;
  bool peer_flight_begun = false;

  const CipherSuite* suite = nullptr;
  crypto::HashAlgorithm prf_hash = crypto::HashAlgorithm::kSha256;
  RecordCipher cipher = RecordCipher::kAes128Gcm;
  std::optional<crypto::KeyShare> key_share;
  std::vector<std::uint8_t> premaster;  // wiped after use
  std::array<std::uint8_t, kMasterSecretSize> master_secret{};
  std::optional<KeyBlock> key_block;

  // peer authentication
  std::vector<std::vector<std::uint8_t>> peer_chain;  // DER, leaf first
  std::optional<crypto::PublicKey> peer_key;
  bool certificate_requested = false;                 // client: the server sent CertificateRequest
  std::vector<std::uint16_t> peer_signature_schemes;  // from its hello or CertificateRequest
  bool client_sent_certificate = false;               // server: expect CertificateVerify
  bool secure_renegotiation = false;
  bool peer_offered_ems = false;
  bool peer_offered_etm = false;
  bool peer_sent_point_formats = false;
  std::string requested_server_name;     // server: the client's SNI host_name (RFC 6066 §3)
  std::string application_protocol;      // ALPN's choice (RFC 7301), empty if none
  std::vector<std::uint8_t> alpn_offer;  // our alpn_protocols in wire form, for the hellos
  std::vector<std::uint8_t> peer_connection_id;  // RFC 9146: the CID our records carry
  // The CID the peer's records to us carry (config->connection_id, or use_connection_id's).
  std::optional<std::vector<std::uint8_t>> own_connection_id;

  // --- resumption (resumption.cc)
  std::optional<Session> offered_session;  // client: offer_session's, until the ServerHello
  std::array<std::uint8_t, kMaxSessionIdSize> hello_session_id{};  // client: sent in the hello
  std::size_t hello_session_id_size = 0;
  Session session;               // this association's ID and (client) ticket, for session()
  bool ticket_expected = false;  // client: the ServerHello carried session_ticket
  bool issue_ticket = false;     // server: the client takes tickets and we have keys

  Negotiated negotiated;
  Failure failure;
  EndpointStats stats;

  // --- records
  RecordWriter writer;
  std::optional<RecordOpener> opener;          // epoch 1, once the peer's CCS arrived
  std::optional<RecordOpener> pending_opener;  // epoch 1, keys derived, CCS not yet seen
  std::uint16_t read_epoch = 0;
  std::size_t read_cid_size = 0;          // the CID incoming tls12_cid records carry (ours)
  bool early_change_cipher_spec = false;  // the peer's CCS overtook its flight's last messages

  // --- output queue
  PendingEvent event = PendingEvent::kNone;
  bool connected_reported = false;
  std::span<std::uint8_t> input;       // the rest of the datagram handle_datagram was given
  std::span<const std::uint8_t> data;  // application data waiting for poll_output
  bool peer_retransmitted = false;
  std::size_t repeats_answered = 0;  // resends for a connected peer's repeats (bounded)
  Instant last_repeat_answered{};
  bool alert_pending = false;
  AlertLevel alert_level = AlertLevel::kFatal;
  AlertDescription alert_description = AlertDescription::kInternalError;
  bool closing = false;  // close() or the peer's close_notify: no more data either way
};

// A fatal handshake error: the alert we send and the reason the caller reads.
struct Fatal {
  Error error;
  AlertDescription alert;
  const char* reason;
};

// fail ends the association: it records why and queues the alert.
Status fail(EndpointState& s, const Fatal& why) noexcept;

// --- the handshake message log (RFC 6347 §4.2.6: headers as if unfragmented)
Status log_message(EndpointState& s, std::uint8_t msg_type, std::uint16_t message_seq,
                   std::span<const std::uint8_t> body) noexcept;
Result<std::size_t> log_hash(const EndpointState& s, std::span<std::uint8_t> out) noexcept;

// send_message writes one handshake message of our next flight: `write` fills the body
// (returning its size, kBufferTooSmall to ask for more room) and the message is logged.
template <class Write>
Status send_message(EndpointState& s, HandshakeType type, std::uint16_t epoch, Write&& write) {
  std::size_t room = 1024;
  for (;;) {
    Result<std::span<std::uint8_t>> body = s.flight.reserve(room);
    if (!body) {
      return body.error();
    }
    Result<std::size_t> n = write(*body);
    if (n) {
      const std::uint16_t seq = s.next_send_seq++;
      if (const Status st =
              s.flight.commit_message(static_cast<std::uint8_t>(type), seq, epoch, *n);
          !st) {
        return st;
      }
      return log_message(s, static_cast<std::uint8_t>(type), seq, s.flight.last_body());
    }
    if (n.error() != Error::kBufferTooSmall || room >= (std::size_t{1} << 20)) {
      return n.error();
    }
    room *= 4;
  }
}

// begin_flight forgets our previous flight; finish_flight makes the new one pending and,
// when the peer answers it, starts the retransmission timer.
void begin_flight(EndpointState& s) noexcept;
void finish_flight(EndpointState& s, bool expects_reply) noexcept;

// --- the flows: each handles one complete handshake message in the current state
Status start_client(EndpointState& s) noexcept;
Status client_handle_message(EndpointState& s, const HandshakeMessage& m) noexcept;
Status server_handle_message(EndpointState& s, const HandshakeMessage& m) noexcept;
// become_connected ends a handshake whose Finished checked out: fail-closed on peer
// authentication, then the kConnected event and the handshake buffers released.
Status become_connected(EndpointState& s) noexcept;
// handle_change_cipher_spec switches the read side to epoch 1 (when the keys are ready).
void handle_change_cipher_spec(EndpointState& s) noexcept;

// --- resumption (resumption.cc)
// current_session describes the session this handshake made (master secret included).
Result<Session> current_session(const EndpointState& s) noexcept;
// restore_session takes a saved session's suite, master secret and peer for an abbreviated
// handshake; the caller has checked that the peer may resume it.
Status restore_session(EndpointState& s, const Session& saved) noexcept;
// send_new_session_ticket (server) seals the session into a NewSessionTicket of our flight.
Status send_new_session_ticket(EndpointState& s) noexcept;
// remember_session (server) puts a completed full handshake in the session cache.
void remember_session(EndpointState& s) noexcept;

// take_connection_id settles RFC 9146 once both hellos carried connection_id: our records
// will carry `peer_wants`, and the peer's carry our configured CID.
Status take_connection_id(EndpointState& s, std::span<const std::uint8_t> peer_wants) noexcept;

// --- key schedule (key_schedule.cc)
Status derive_master_secret(EndpointState& s) noexcept;  // from s.premaster and the log
// log_keys writes the CLIENT_RANDOM line to the configured key log, if any.
void log_keys(const EndpointState& s) noexcept;
Status install_keys(EndpointState& s) noexcept;   // key block → sealer, pending opener
Status send_finished(EndpointState& s) noexcept;  // CCS + Finished into the flight
// check_finished verifies the peer's Finished and adds it to the log.
Status check_finished(EndpointState& s, const HandshakeMessage& m) noexcept;
Status ecdh_premaster(EndpointState& s, std::span<const std::uint8_t> peer_public) noexcept;
Status psk_premaster(EndpointState& s) noexcept;  // PSK and ECDHE_PSK (after ecdh_premaster)

// --- peer authentication (peer_auth.cc)
bool verifies_peer_by_certificate(const EndpointConfig& c) noexcept;
Status accept_peer_certificate(EndpointState& s, std::span<const std::uint8_t> body) noexcept;
// recheck_saved_peer judges a saved session's peer by today's configuration before it is
// resumed, on the leaf the session kept: it must match today's fingerprints or chain to
// today's trust store when either is set, and pass peer_verifier again with
// reverify_on_resume. It sets saved.peer_auth to what proved the peer now, or returns false:
// then the session is not resumed (the client does not offer it, the server runs a full
// handshake).
bool recheck_saved_peer(const EndpointState& s, Session& saved) noexcept;
bool key_fits_suite(crypto::KeyType key, SuiteAuth auth) noexcept;
// choose_signature_scheme picks our first configured scheme the peer accepts and our key
// can make; 0 if none.
std::uint16_t choose_signature_scheme(const EndpointState& s, const crypto::PrivateKey& key,
                                      std::span<const std::uint16_t> peer_accepts) noexcept;
Status verify_peer_signature(EndpointState& s, std::uint16_t scheme,
                             std::span<const std::uint8_t> message,
                             std::span<const std::uint8_t> signature) noexcept;
// sign_into signs `message` with our certificate key into `out`.
Result<std::size_t> sign_into(const EndpointState& s, std::uint16_t scheme,
                              std::span<const std::uint8_t> message,
                              std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls::detail
