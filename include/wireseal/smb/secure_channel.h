#pragma once
// SecureChannel: SMB2/3 message security over direct TCP framing, sans-IO — the part of an
// SMB client (and, for tests and benchmarks, of a server) that frames, signs, seals, opens and
// verifies messages. ClientEngine (client_engine.h) builds a client's bookkeeping on it.
//
//   send:    body written in place → 64-byte header → sign or seal → 4-byte prefix → frame
//   receive: bytes → MessagePump → transformed? open : (signed? verify) → header → message
//
// SecureChannel is role-agnostic (client or server side of one session): it owns one outgoing
// frame buffer and one MessagePump, both allocated at construction; after that no call
// allocates. ClientEngine adds what a client needs on top: message IDs, credit charges and the
// table of requests in flight, so many requests can be outstanding and responses are matched
// by MessageId in any order.
//
// Frame buffer layout (offsets fixed at construction, so in-place work never moves bytes):
//
//   | prefix (4) | transform header (52, encrypted only) | header (64) | body ... |
//
// Protection: kNone sends plain messages; kSigned signs every message and rejects unsigned or
// badly signed ones; kEncrypted seals every message (unsigned inside, §3.1.4.1: an encrypted
// message is not signed) and rejects anything not encrypted for this session.
//
// Replay: transform nonces are the peer's choice (MS-SMB2 leaves them implementation-defined),
// so no nonce window is kept. Instead ClientEngine accepts exactly one final response per
// MessageId in flight: a replayed or duplicated response — same nonce or not — finds no
// request and is rejected with kReplay.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "wireseal/crypto/backend.h"
#include "wireseal/random.h"
#include "wireseal/result.h"
#include "wireseal/smb/framing.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/keys.h"
#include "wireseal/smb/session_config.h"
#include "wireseal/smb/session_security.h"
#include "wireseal/smb/signing.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb {

// Incoming is one received message: a view into the channel's receive buffer, valid until the
// next read_space() call.
struct Incoming {
  Smb2Header header;
  std::span<std::uint8_t> message;  // header and body (a compound member: up to NextCommand)
  std::span<std::uint8_t> body;     // message without its 64-byte header
  bool encrypted = false;
};

class SecureChannel {
 public:
  // SecureChannel derives the session keys from `config` and keys the sealer/opener or the
  // signer for its role. Set-up misuse (key sizes, a 3.1.1 session without preauth hash,
  // max_message_len above the frame limit) throws std::invalid_argument.
  explicit SecureChannel(const SessionConfig& config);
  // create is the constructor that never throws (kInvalidArgument, kOutOfMemory).
  static Result<SecureChannel> create(const SessionConfig& config) noexcept;

  const SessionConfig& config() const noexcept { return config_; }
  // encryption_nonces is the nonce source of the key this channel seals with (kEncrypted;
  // null otherwise): give it to the SessionConfig of every further channel of the session.
  std::shared_ptr<TransformNonces> encryption_nonces() const noexcept {
    return config_.protection == Protection::kEncrypted ? security_.encryption_nonces() : nullptr;
  }
  // overhead is the frame bytes around a message: 4, plus 52 when encrypted.
  std::size_t overhead() const noexcept { return message_offset_; }

  // outgoing_message is the buffer the next message (or compound chain) is built in:
  // max_message_len bytes; the header goes at [0, 64) and the body after it.
  std::span<std::uint8_t> outgoing_message() noexcept;
  // outgoing_body is outgoing_message() after the 64-byte header.
  std::span<std::uint8_t> outgoing_body() noexcept {
    return outgoing_message().subspan(kHeaderSize);
  }

  // send encodes `header` at outgoing_message()[0, 64) (session_id from the config; for kSigned
  // the SIGNED flag and signature are set), protects the message of 64 + body_len bytes and
  // frames it. Returns the frame to write, a view into the channel valid until the next send.
  // Errors: kBufferTooSmall (body_len over the buffer), kSequenceExhausted (encrypted and the
  // nonce counter is used up). The body bytes are encrypted in place when kEncrypted.
  Result<std::span<const std::uint8_t>> send(const Smb2Header& header,
                                             std::size_t body_len) noexcept;

  // send with a body held elsewhere: the body is copied after the header (the AEAD takes one
  // contiguous plaintext) unless it already is outgoing_body().first(n). `body` must not
  // otherwise overlap the channel's buffer (kAliasing).
  Result<std::span<const std::uint8_t>> send(const Smb2Header& header,
                                             std::span<const std::uint8_t> body) noexcept;

  // send_chain protects a compound chain of `chain_len` bytes already laid out in
  // outgoing_message() (see ChainBuilder): with kSigned each member is signed, with kEncrypted
  // the whole chain is sealed in one transform (MS-SMB2 §3.2.4.1.4).
  Result<std::span<const std::uint8_t>> send_chain(std::size_t chain_len) noexcept;

  // read_space / commit feed received bytes (see MessagePump).
  std::span<std::uint8_t> read_space() noexcept { return pump_.read_space(); }
  void commit(std::size_t n) noexcept { pump_.commit(n); }

  // receive returns the next received message, decrypted or verified, or std::nullopt when
  // more bytes are needed. The members of a compound chain are returned one per call.
  // Errors (the message or chain is dropped and counted; the channel stays usable unless the
  // framing itself broke): kMalformed, kAuthFailed, kWrongContext (another SessionId),
  // kBadState (framing lost).
  Result<std::optional<Incoming>> receive() noexcept;

  const ChannelCounters& counters() const noexcept { return counters_; }
  ChannelCounters& counters() noexcept { return counters_; }

 private:
  Result<std::span<const std::uint8_t>> finish(std::size_t message_len,
                                               std::span<const std::uint8_t> external) noexcept;
  Result<std::optional<Incoming>> next_in_chain() noexcept;

  SessionConfig config_;
  SessionSecurity security_;
  std::vector<std::uint8_t> out_;
  std::size_t message_offset_;
  MessagePump pump_;
  ChainCursor chain_;
  bool chain_encrypted_ = false;
  ChannelCounters counters_;
};

}  // namespace wireseal::smb
