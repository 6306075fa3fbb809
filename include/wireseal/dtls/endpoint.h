// dtls::Endpoint: one DTLS 1.2 association (RFC 6347 over the RFC 5246 handshake), client or
// server, sans-IO.
//
// Bytes and time go in, datagrams and events come out; nothing here reads a clock, opens a
// socket or starts a thread:
//
//   endpoint.start(now);                          // client: queues the ClientHello
//   endpoint.handle_datagram(now, datagram);      // every UDP datagram from the peer
//   endpoint.handle_timeout(now);                 // when the deadline poll_output gave passes
//   while (out = endpoint.poll_output(buffer)) {  // until kTimeout or kIdle
//     kDatagram → send buffer[0, size); kApplicationData → use data; kConnected → keys ready…
//   }
//   endpoint.send(plaintext, datagram_buffer);    // one application-data record, sealed
//
// handle_datagram decrypts records in place, so the datagram buffer must stay untouched until
// poll_output has returned kTimeout or kIdle: application data comes out as views into it.
// After the handshake, records go through the same RecordSealer/RecordOpener as the bare
// record layer: no allocation per record.
//
// Malformed, replayed, out-of-epoch or unauthenticated records are dropped and counted
// (RFC 6347 §4.1.2.7). Anything that ends the association (a bad handshake message, a fatal
// alert, the handshake timeout) is returned as an Error once, kept in failure(), and a fatal
// alert goes out on the next poll_output.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wireseal/crypto/certificate.h"
#include "wireseal/crypto/signature.h"
#include "wireseal/dtls/alert.h"
#include "wireseal/dtls/handshake/cipher_suite.h"
#include "wireseal/dtls/session.h"
#include "wireseal/random.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

enum class Role : std::uint8_t { kClient, kServer };

// KeyLogSink receives NSS key log lines (the SSLKEYLOGFILE format Wireshark and
// `wireseal dtls decrypt --keylog` read): one "CLIENT_RANDOM <64 hex> <96 hex>" line, without a
// newline, per association once its master secret is known (full or resumed handshake).
// For debugging only: whoever reads the lines can decrypt the association.
struct KeyLogSink {
  void (*write)(void* context, std::string_view line) noexcept = nullptr;
  void* context = nullptr;
};

// PeerVerifier is the caller's own judgement of the peer's certificate, for policies a
// fingerprint list or a trust store cannot express: a pin on the key, an answer from the
// signaling channel, a revocation check. `chain` is what the peer sent, leaf first (DER; on a
// resumption with reverify_on_resume, the saved leaf alone). Return true to accept; to
// refuse, return false, optionally after changing `alert` from certificate_unknown to the
// alert the peer should get. It runs inside handle_datagram (a client's resumption check,
// inside offer_session) and must not call back into the endpoint.
struct PeerVerifier {
  bool (*verify)(void* context, std::span<const std::span<const std::uint8_t>> chain,
                 AlertDescription& alert) noexcept = nullptr;
  void* context = nullptr;
};

// EndpointConfig is shared by every association it configures (a server's listener hands the
// same one to each); it is read-only once an Endpoint holds it.
struct EndpointConfig {
  Role role = Role::kClient;

  // What is offered (client) or accepted (server), in preference order; empty: the defaults
  // (default_cipher_suites(); X25519, P-256, P-384; ECDSA, RSA-PSS, RSA PKCS#1, Ed25519).
  std::vector<std::uint16_t> cipher_suites;
  std::vector<std::uint16_t> groups;
  std::vector<std::uint16_t> signature_schemes;

  // Our identity: a certificate for the certificate suites (a client sends it when asked),
  // and/or a pre-shared key for the PSK suites.
  std::optional<crypto::CertifiedKey> certificate;
  std::vector<std::uint8_t> psk;
  std::vector<std::uint8_t> psk_identity;       // client: sent; server: the one it accepts
  std::vector<std::uint8_t> psk_identity_hint;  // server: sent in its ServerKeyExchange

  // The peer's identity. The endpoint is fail-closed: it reports kConnected only if the peer
  // proved one of these — a certificate whose fingerprint is listed, a chain to trust_store
  // (carrying server_name when set), a certificate peer_verifier accepts, or the PSK — unless
  // allow_unauthenticated_peer is set. A server with any of the certificate checks asks the
  // client for its certificate and requires it (mutual authentication, as WebRTC does).
  // peer_verifier only narrows fingerprints and trust_store: with them, the certificate must
  // pass both; without them, its answer alone decides.
  std::vector<crypto::Fingerprint> peer_fingerprints;
  std::optional<crypto::TrustStore> trust_store;
  PeerVerifier peer_verifier;
  // A session is resumed only if its saved peer leaf passes today's peer_fingerprints and
  // trust_store (the leaf alone: a chain that needs intermediates is not resumed under a
  // trust store, the peer goes through a full handshake). With this set, the saved leaf also
  // goes through peer_verifier again, so a policy that changed since (a revoked key) also
  // ends resumptions; without it, the verifier's verdict from the full handshake stands. A
  // session that fails these checks falls back to a full handshake (the server's), or is
  // not offered (the client's offer_session says kAuthFailed).
  bool reverify_on_resume = false;
  std::string server_name;  // client: sent as SNI and checked against the server's chain
  bool allow_unauthenticated_peer = false;
  // Server: ask for a client certificate even without fingerprints or a trust store (the
  // caller judges peer_certificate() itself, so this needs allow_unauthenticated_peer), and
  // refuse a client that sends none.
  bool request_client_certificate = false;
  bool require_client_certificate = false;

  // RFC 7627: a handshake without the extended master secret is refused unless this is off.
  bool require_extended_master_secret = true;

  // use_srtp (RFC 5764): DTLS-SRTP protection profile ids in preference order (1, 2: AES-CM
  // HMAC-SHA1 80/32; 7, 8: AEAD AES-128/256-GCM), and the MKI (client: offered).
  std::vector<std::uint16_t> srtp_profiles;
  std::vector<std::uint8_t> srtp_mki;

  // ALPN (RFC 7301): the application protocols ("webrtc", "c-webrtc", "coap", …) a client
  // offers, or a server accepts, in preference order. A server picks its first one the client
  // offers and refuses a client that offers only others (no_application_protocol); empty:
  // not negotiated.
  std::vector<std::string> alpn_protocols;

  // Connection ID (RFC 9146), off by default: the CID this side wants on the records it
  // receives (0..255 bytes; empty: none for us, but we send the peer's). Negotiated when both
  // sides configure one; from epoch 1 each side's records carry the CID the other asked for,
  // so an association survives the peer's address changing (NAT rebinding).
  std::optional<std::vector<std::uint8_t>> connection_id;

  // Session resumption (session.h), off by default. Client: ask for an RFC 5077 ticket on a
  // full handshake (a session given to offer_session is offered whatever this says). Server:
  // remember sessions by ID in session_cache, and/or issue and accept tickets sealed with
  // session_ticket_keys, announcing ticket_lifetime_hint.
  bool session_tickets = false;
  std::shared_ptr<SessionCache> session_cache;
  std::shared_ptr<SessionTicketKeys> session_ticket_keys;
  std::chrono::seconds ticket_lifetime_hint{7200};

  // Transport: the largest datagram sent, and the RFC 6347 §4.2.4 retransmission timer.
  std::size_t mtu = 1200;
  std::chrono::milliseconds initial_retransmit_timeout{1000};
  std::chrono::milliseconds max_retransmit_timeout{60000};
  // A flight unanswered after this many timer expiries ends the handshake with kTimedOut
  // (1 + 2 + … s: about 7 minutes at the defaults, as BoringSSL and OpenSSL allow).
  std::size_t max_retransmissions = 12;
  // And/or a bound on the whole handshake from start() (0: none).
  std::chrono::milliseconds handshake_timeout{0};
  std::size_t max_handshake_message = 16384;  // longer messages end the handshake

  RandomSource random = system_random();
  KeyLogSink keylog;  // none by default
};

// What the handshake settled, valid from kConnected on.
struct Negotiated {
  const CipherSuite* suite = nullptr;
  std::uint16_t group = 0;             // ECDHE group (0 for PSK)
  std::uint16_t signature_scheme = 0;  // the server's ServerKeyExchange signature (0 for PSK)
  bool extended_master_secret = false;
  bool encrypt_then_mac = false;
  std::uint16_t srtp_profile = 0;  // DTLS-SRTP profile id, 0 when use_srtp was not negotiated
  PeerAuth peer_auth = PeerAuth::kNone;
  bool resumed = false;        // an abbreviated handshake on a saved session
  bool connection_id = false;  // RFC 9146 negotiated: epoch-1 records carry the CIDs
};

// The keying material of RFC 5764 §4.2, ready for srtp::split_keying_material.
struct SrtpKeyingMaterial {
  std::uint16_t profile = 0;  // DTLS-SRTP profile id
  std::array<std::uint8_t, 2 * (32 + 14)> bytes{};
  std::size_t size = 0;
  std::span<const std::uint8_t> material() const noexcept { return {bytes.data(), size}; }
};

// One thing poll_output hands back.
struct Output {
  enum class Kind : std::uint8_t {
    kDatagram,         // send buffer[0, size) to the peer
    kConnected,        // the handshake completed: negotiated(), exports and send() are ready
    kApplicationData,  // `data` is a record's plaintext, inside the handle_datagram buffer
    kClosed,           // the peer sent close_notify (our reply is already queued or sent)
    kFailed,           // the association ended: failure() says why
    kTimeout,          // nothing more now: call handle_timeout at `deadline`
    kIdle,             // nothing more now, and no timer is running
  };
  Kind kind = Kind::kIdle;
  std::size_t size = 0;
  std::span<const std::uint8_t> data;
  Instant deadline{};
};

// Why an association ended.
struct Failure {
  Error error = Error::kBadState;
  AlertDescription alert = AlertDescription::kInternalError;
  bool alert_from_peer = false;  // the peer sent `alert`; otherwise we sent it
  const char* reason = "";       // one line naming the cause
};

struct EndpointStats {
  DropCounters drops;                 // records dropped unread (RFC 6347 §4.1.2.7)
  std::uint64_t retransmissions = 0;  // flights sent again (timer or peer retransmission)
  std::uint64_t datagrams_in = 0;
  std::uint64_t datagrams_out = 0;
};

namespace detail {
struct EndpointState;
}

class Endpoint {
 public:
  // Throws std::invalid_argument on a configuration that cannot work (no suite usable with
  // the identity given, an MTU too small for a record, a server without certificate or PSK).
  explicit Endpoint(std::shared_ptr<const EndpointConfig> config);
  static Result<Endpoint> create(std::shared_ptr<const EndpointConfig> config) noexcept;
  ~Endpoint();
  Endpoint(Endpoint&&) noexcept;
  Endpoint& operator=(Endpoint&&) noexcept;

  Role role() const noexcept;

  // --- input
  // offer_session (client, before start) asks the server to resume `session`; a server that
  // declines runs a full handshake. kBadState after start or on a server, kInvalidArgument
  // for a session that is not resumable or whose suite or EMS use this config refuses,
  // kAuthFailed when this config's peer checks refuse the session's saved server (its leaf
  // matches none of peer_fingerprints, does not chain to trust_store on its own, or fails
  // peer_verifier with reverify_on_resume): nothing is offered, and start() runs the full
  // handshake, which checks the server's certificate afresh.
  Status offer_session(const Session& session) noexcept;
  // use_connection_id (before start) gives this association its own RFC 9146 CID in place of
  // EndpointConfig::connection_id (which must be set: it says CIDs are wanted at all), so a
  // server can find an association by the CID of a record from a new address (NAT
  // rebinding). kBadState after start or without a configured CID, kInvalidArgument over
  // 255 bytes.
  Status use_connection_id(std::span<const std::uint8_t> cid) noexcept;
  // connection_id: the CID this association asks for (empty without one).
  std::span<const std::uint8_t> connection_id() const noexcept;
  // start begins the handshake clock; a client queues its ClientHello. Called once.
  Status start(Instant now) noexcept;
  Status handle_datagram(Instant now, std::span<std::uint8_t> datagram) noexcept;
  Status handle_timeout(Instant now) noexcept;
  // close queues a close_notify alert; the association accepts no more data.
  Status close() noexcept;
  // abort ends the association at once with the fatal `alert`: for a verdict the application
  // reaches itself, e.g. bad_certificate when the fingerprint it learns after the handshake
  // (from a late SDP answer) does not match peer_certificate(). The alert goes out on the
  // next poll_output, then kFailed; failure() names the application. kBadState once ended.
  Status abort(AlertDescription alert) noexcept;

  // --- output: call until kTimeout or kIdle. `buffer` must hold max_datagram_size() bytes
  // (kBufferTooSmall otherwise, nothing lost).
  Result<Output> poll_output(std::span<std::uint8_t> buffer) noexcept;
  std::size_t max_datagram_size() const noexcept;

  // send seals `plaintext` as one application-data record into `out` (sealed_size() bytes)
  // and returns its length: the caller transmits it. kBadState before kConnected or after
  // close; the record layer's errors otherwise.
  Result<std::size_t> send(std::span<const std::uint8_t> plaintext,
                           std::span<std::uint8_t> out) noexcept;
  std::size_t sealed_size(std::size_t plaintext_len) const noexcept;

  // --- after kConnected
  bool connected() const noexcept;
  const Negotiated& negotiated() const noexcept;
  // RFC 5705 keying material exporter; `context` is used when has_context (an empty context
  // differs from none).
  Status export_keying_material(std::string_view label, std::span<const std::uint8_t> context,
                                bool has_context, std::span<std::uint8_t> out) const noexcept;
  // The use_srtp keys (kBadState when no profile was negotiated).
  Result<SrtpKeyingMaterial> srtp_keying_material() const noexcept;
  // The session to resume this association with later (a client keeps it; the server has
  // stored it already). kBadState before kConnected; kUnsupported if the server gave neither
  // a session ID nor a ticket.
  Result<Session> session() const noexcept;
  // The application protocol ALPN settled on; empty when none was negotiated.
  std::string_view application_protocol() const noexcept;
  // The host name of the server (RFC 6066 SNI): a client's configured server_name; on a
  // server, the one the client asked for (empty if none), to choose what to serve.
  std::string_view server_name() const noexcept;
  // The peer's leaf certificate (DER), empty for PSK.
  std::span<const std::uint8_t> peer_certificate() const noexcept;

  const Failure& failure() const noexcept;
  const EndpointStats& stats() const noexcept;
  // Bytes this association holds now (handshake buffers are released once connected).
  std::size_t memory_used() const noexcept;

 private:
  std::unique_ptr<detail::EndpointState> state_;
};

}  // namespace wireseal::dtls
