#pragma once
// Connection: the client side of one SMB2/3 transport connection, sans-IO (MS-SMB2 §3.2).
//
//   send:    bodies written in place → add() headers (MessageIds, credits) → flush(): sign or
//            seal with the request's session → 4-byte prefix → frame to write
//   receive: bytes → MessagePump → transformed? open with its session : verify if signed
//            → match to the request in flight by MessageId → Response
//
// A Connection knows nothing about sockets or about what commands mean. It owns what belongs
// to the connection rather than to a session: the framing pump, MessageId assignment and
// credits (§3.2.4.1.3, §3.2.4.1.5), the table of requests in flight, the connection's preauth
// integrity hash (§3.2.5.2: the NEGOTIATE request and response as sent and received), and the
// sessions set up on it, each with its own SessionSecurity, keyed by SessionId. A session is
// installed once its SESSION_SETUP has produced a session key; a further channel of the same
// session (binding, §3.2.4.1.7) installs a SessionSecurity built with the first channel's
// encryption_nonces(), so one key never repeats a nonce across channels.
//
// Protection is chosen per request: the session's own (SessionSecurity::protection), or
// encryption where the request asks for it (a tree whose share encrypts). Every request
// remembers how it was sent, and its response must come back at least as protected: an
// unencrypted response to an encrypted request, or an unsigned one on a signing session, is
// refused with kAuthFailed — the connection cannot be downgraded by the network.
//
// Buffers are allocated at construction; send and receive allocate nothing. The outgoing
// buffer keeps 4 + 52 bytes before the first header, so a chain is sealed in place and an
// unencrypted one is framed without moving a byte.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "wireseal/result.h"
#include "wireseal/smb/framing.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/keys.h"
#include "wireseal/smb/session_security.h"

namespace wireseal::smb {

struct ConnectionConfig {
  // max_message_len bounds one message or compound chain each way (without transform header):
  // a READ response of the largest chunk plus its headers must fit.
  std::size_t max_message_len = (1 << 20) + 4096;
  std::size_t max_in_flight = 64;  // requests outstanding at once
  std::size_t max_sessions = 4;    // sessions installed at once
  std::uint64_t first_message_id = 0;
  std::uint32_t credits = 1;  // a new connection may send exactly one request (NEGOTIATE)
};

// Request is the header of one request for Connection::add.
struct Request {
  Command command = Command::kEcho;
  std::uint64_t session_id = 0;
  std::uint32_t tree_id = 0;
  std::uint16_t credit_charge = 1;  // §3.2.4.1.5: 1 + (payload - 1) / 65536 with LARGE_MTU
  std::uint16_t credit_request = 1;
  std::uint32_t flags = 0;  // extra header flags (kFlagRelatedOperations, kFlagDfsOperations)
  // encrypt asks for encryption (a share that encrypts) even where the session's floor does
  // not; kBadState from flush when the session cannot encrypt.
  bool encrypt = false;
  // sign asks for a signature where the session does not sign everything (validate-negotiate
  // must be signed, §3.2.5.14.12).
  bool sign = false;
};

// Response is a matched final response: views into the connection's receive buffer, valid
// until the next read_space() call.
struct Response {
  std::uint64_t message_id = 0;
  Smb2Header header;
  std::span<std::uint8_t> message;  // header and body, as received (decrypted)
  std::span<std::uint8_t> body;
  bool encrypted = false;
  // verified is false only for a signed SESSION_SETUP response of a session not installed yet
  // (the final one of §3.2.5.3.1, signed with the keys it creates): the caller installs the
  // session and calls Connection::verify on it before trusting it.
  bool verified = true;
};

class Connection {
 public:
  // Connection allocates its buffers and tables. Misuse (max_message_len below a header or
  // above the frame limit, zero table sizes) throws std::invalid_argument.
  explicit Connection(const ConnectionConfig& config = {});
  // create is the constructor that never throws (kInvalidArgument, kOutOfMemory).
  static Result<Connection> create(const ConnectionConfig& config = {}) noexcept;

  // --- sessions
  // install adds a session's security (kTableFull when max_sessions are installed,
  // kBadState when its SessionId is already installed).
  Status install(SessionSecurity security) noexcept;
  // remove forgets a session (after LOGOFF); its later messages are kWrongContext.
  void remove(std::uint64_t session_id) noexcept;
  SessionSecurity* session(std::uint64_t session_id) noexcept;
  // verify checks a Response that came back unverified, with its now installed session.
  Status verify(const Response& response) noexcept;

  // --- sending
  // request_body is where the body of the next request goes: after the header, 8-byte aligned
  // after the requests already added to this frame.
  std::span<std::uint8_t> request_body() noexcept;
  // add puts a request with the body_len bytes written at request_body() into the frame being
  // built (several adds make a compound chain; flush sends them as one). It takes credit_charge
  // MessageIds and credits and records the request as in flight; returns its MessageId.
  // Errors: kBadState (too few credits or the in-flight table is full: read responses first;
  // or a request for another session or protection than the chain's first), kSequenceExhausted
  // (MessageIds used up), kBufferTooSmall (the frame is full), kWrongContext (a session_id
  // that is not installed, other than 0 and the SessionId of a session being set up).
  Result<std::uint64_t> add(const Request& request, std::size_t body_len) noexcept;
  // pending_chain is the chain built by add() so far, before protection: the bytes a
  // SESSION_SETUP request adds to the session's preauth hash.
  std::span<const std::uint8_t> pending_chain() const noexcept;
  // flush protects the chain (each member signed, or the whole chain sealed) and returns the
  // frame to write, valid until the next add. Errors: those of signing and sealing (the
  // requests stay in flight; the connection should be dropped).
  Result<std::span<const std::uint8_t>> flush() noexcept;

  // --- receiving
  std::span<std::uint8_t> read_space() noexcept { return pump_.read_space(); }
  void commit(std::size_t n) noexcept { pump_.commit(n); }
  // poll returns the next final response, std::nullopt when more bytes are needed. Interim
  // STATUS_PENDING responses add their credits and are skipped; their signature is not
  // checked (MS-SMB2 §3.2.5.1.3), but one in clear to an encrypted request or on a session
  // that encrypts is kAuthFailed, as a final one would be. Errors: kMalformed,
  // kAuthFailed (bad tag or signature, or less protection than the request was sent with),
  // kWrongContext (a session not installed), kReplay (no such request in flight), kBadState
  // (framing lost: drop the connection). After any error the stream can no longer be trusted;
  // a client drops the connection.
  Result<std::optional<Response>> poll() noexcept;

  // --- state
  std::uint32_t credits() const noexcept { return credits_; }
  std::size_t in_flight() const noexcept { return in_flight_; }
  std::uint64_t next_message_id() const noexcept { return next_message_id_; }
  // preauth_hash is the connection's preauth integrity hash (the NEGOTIATE exchange), from
  // which each session's starts (3.1.1).
  const PreauthHash& preauth_hash() const noexcept { return preauth_; }
  const ChannelCounters& counters() const noexcept { return counters_; }

 private:
  struct InFlight {
    std::uint64_t message_id = 0;
    std::uint64_t session_id = 0;
    Protection protection = Protection::kNone;
    bool used = false;
  };
  struct Installed {
    std::optional<SessionSecurity> security;
  };

  InFlight* find(std::uint64_t message_id) noexcept;
  void retire(InFlight* slot) noexcept;
  Protection protection_for(const Request& request, const SessionSecurity* s) const noexcept;
  Result<std::optional<Response>> next_member() noexcept;
  Result<std::optional<Response>> accept(const Smb2Header& header, std::span<std::uint8_t> message,
                                         bool encrypted) noexcept;

  std::size_t max_message_len_;
  std::vector<std::uint8_t> out_;  // | prefix (4) | transform header (52) | chain ... |
  ChainBuilder chain_;
  std::size_t chain_members_ = 0;
  std::uint64_t chain_session_ = 0;
  Protection chain_protection_ = Protection::kNone;
  bool chain_negotiate_ = false;
  MessagePump pump_;
  ChainCursor incoming_;
  bool incoming_encrypted_ = false;
  std::uint64_t incoming_session_ = 0;  // the transform header's SessionId
  std::vector<InFlight> slots_;         // open addressing on message_id, capacity a power of two
  std::size_t max_in_flight_;
  std::size_t in_flight_ = 0;
  std::vector<Installed> sessions_;
  std::uint64_t next_message_id_;
  std::uint32_t credits_;
  PreauthHash preauth_;
  ChannelCounters counters_;
};

}  // namespace wireseal::smb
