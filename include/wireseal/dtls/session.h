// Session resumption (RFC 5246 §7.3 abbreviated handshake, RFC 5077 tickets): what a client
// keeps to resume, and the two ways a server remembers sessions. Both are off by default.
//
//   client:  endpoint.offer_session(saved);  …  kConnected  …  saved = *endpoint.session();
//   server:  config.session_cache = std::make_shared<SessionCache>();             // by ID
//            config.session_ticket_keys = std::make_shared<SessionTicketKeys>(secret);  // tickets
//            … and ticket_keys->rotate(new_secret) on the caller's schedule.
//
// A resumed association skips the key exchange and certificates: it reuses the master
// secret, so it is authenticated exactly as the handshake that made the session was
// (Session::peer_auth), and it reports Negotiated::resumed.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "wireseal/dtls/handshake/message.h"
#include "wireseal/random.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

using Instant = std::chrono::steady_clock::time_point;

// How the peer was authenticated (kVerifier: EndpointConfig::peer_verifier accepted its
// certificate, and no fingerprint or trust store was configured to prove more).
enum class PeerAuth : std::uint8_t { kNone, kFingerprint, kChain, kPsk, kVerifier };

// Session: one resumable session. The master secret is wiped when the Session is destroyed.
// A client should keep sessions per server (name and address): resumption proves the server
// holds the session, not that it is the one the caller meant to reach now.
struct Session {
  Session() = default;
  ~Session();
  Session(const Session&) = default;
  Session& operator=(const Session&) = default;
  Session(Session&&) noexcept = default;
  Session& operator=(Session&&) noexcept = default;

  std::uint16_t cipher_suite = 0;
  bool extended_master_secret = false;
  PeerAuth peer_auth = PeerAuth::kNone;
  std::array<std::uint8_t, 48> master_secret{};
  std::array<std::uint8_t, kMaxSessionIdSize> id{};  // the server's session ID, id_size bytes
  std::size_t id_size = 0;
  std::vector<std::uint8_t> ticket;  // RFC 5077 ticket (client side), empty if none
  std::uint32_t ticket_lifetime_hint_seconds = 0;
  std::vector<std::uint8_t> peer_certificate;  // the peer's leaf (DER), empty for PSK

  std::span<const std::uint8_t> session_id() const noexcept { return {id.data(), id_size}; }
  // resumable: there is something to present (an ID or a ticket) for a known suite.
  bool resumable() const noexcept { return cipher_suite != 0 && (id_size != 0 || !ticket.empty()); }
};

// SessionCache: the server's sessions by ID, bounded in count and age. Shared by every
// association of a server (one EndpointConfig); safe to use from several threads.
class SessionCache {
 public:
  explicit SessionCache(std::size_t capacity = 1024,
                        std::chrono::seconds lifetime = std::chrono::hours(2));
  SessionCache(const SessionCache&) = delete;
  SessionCache& operator=(const SessionCache&) = delete;

  // store keeps `session` under its ID (the oldest entry goes when the cache is full).
  Status store(Instant now, const Session& session) noexcept;
  // find returns a copy of the live session with this ID.
  std::optional<Session> find(Instant now, std::span<const std::uint8_t> id) const noexcept;
  void remove(std::span<const std::uint8_t> id) noexcept;
  std::size_t size() const noexcept;

 private:
  struct Entry {
    Session session;
    Instant stored;
  };
  using Key = std::array<std::uint8_t, 1 + kMaxSessionIdSize>;  // length, then the ID
  static Key key_of(std::span<const std::uint8_t> id) noexcept;
  std::size_t capacity_;
  std::chrono::seconds lifetime_;
  mutable std::mutex mutex_;
  std::map<Key, Entry> entries_;
  std::deque<Key> order_;  // oldest first; may name entries already removed
};

// SessionTicketKeys: seals and opens RFC 5077 tickets under a secret the caller supplies and
// rotates (several servers may share it). A ticket is
//   key_name(16) || salt(16) || AES-256-GCM(session state) || tag(16)
// with a fresh AES key per ticket, HMAC-SHA256(secret, label || salt), so no (key, nonce)
// pair repeats however many tickets are issued or servers share the secret. Tickets of the
// previous secret still open until the next rotation; the caller's rotation period bounds a
// ticket's life. Safe to use from several threads.
class SessionTicketKeys {
 public:
  static constexpr std::size_t kSecretSize = 32;
  static constexpr std::size_t kOverhead = 16 + 16 + 16;

  explicit SessionTicketKeys(std::span<const std::uint8_t, kSecretSize> secret) noexcept;
  ~SessionTicketKeys();
  SessionTicketKeys(const SessionTicketKeys&) = delete;
  SessionTicketKeys& operator=(const SessionTicketKeys&) = delete;

  void rotate(std::span<const std::uint8_t, kSecretSize> secret) noexcept;

  // seal writes the ticket for `session` (kBufferTooSmall: the size needed is
  // sealed_size(session)); open returns the session inside a ticket, or kAuthFailed for a
  // ticket this server did not issue (unknown key name, altered, truncated).
  std::size_t sealed_size(const Session& session) const noexcept;
  Result<std::size_t> seal(const Session& session, RandomSource random,
                           std::span<std::uint8_t> out) const noexcept;
  Result<Session> open(std::span<const std::uint8_t> ticket) const noexcept;

 private:
  struct Key {
    std::array<std::uint8_t, kSecretSize> secret{};
    std::array<std::uint8_t, 16> name{};
  };
  static Key make_key(std::span<const std::uint8_t, kSecretSize> secret) noexcept;

  mutable std::mutex mutex_;
  Key current_;
  std::optional<Key> previous_;
};

}  // namespace wireseal::dtls
