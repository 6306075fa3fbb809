#pragma once
// HandshakeReassembler puts the peer's handshake messages back together from their fragments
// (RFC 6347 §4.2.3) in memory the engine gives it, and releases them in message_seq order.
//
// Bounds: a message longer than max_message, or one that does not fit what is left of the
// storage, is refused (the peer may retransmit once earlier messages are consumed); only
// message_seq values inside a window of kSlots from the next expected one are kept. So a peer
// can make an association hold at most storage.size() bytes of handshake, whatever it sends.
// Fragments may arrive in any order, repeat and overlap; overlapping bytes must agree, else
// the fragment is refused whole (nothing of it is written).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "wireseal/dtls/handshake/message.h"

namespace wireseal::dtls::detail {

enum class FragmentOutcome : std::uint8_t {
  kAccepted,      // stored (or already had every byte of it)
  kOld,           // a message already released: the peer is retransmitting its last flight
  kBeyondWindow,  // too far ahead of the next expected message: dropped
  kTooLarge,      // the message is longer than max_message: dropped
  kNoRoom,        // the storage cannot hold the message now: dropped
  kInconsistent,  // disagrees with what is stored for that message_seq: dropped
};

struct HandshakeMessage {
  std::uint8_t msg_type;
  std::uint16_t message_seq;
  std::span<const std::uint8_t> body;
};

class HandshakeReassembler {
 public:
  static constexpr std::size_t kSlots = 8;  // a flight has at most 6 messages

  // storage holds message bodies and, per message, one bit per byte received.
  HandshakeReassembler(std::span<std::uint8_t> storage, std::size_t max_message) noexcept
      : storage_(storage), max_message_(max_message) {}

  FragmentOutcome add(const HandshakeFragment& fragment) noexcept;

  // ready is the next message in order once every byte of it has arrived.
  std::optional<HandshakeMessage> ready() const noexcept;
  // release consumes the ready message (its view stays valid until the next add).
  void release() noexcept;

  std::uint16_t next_seq() const noexcept { return next_seq_; }

  // start_at sets the first message_seq expected (a server whose client went through a
  // stateless HelloVerifyRequest exchange starts at its second ClientHello, RFC 6347 §4.2.2).
  // Only before anything was stored.
  void start_at(std::uint16_t message_seq) noexcept {
    if (used_ == 0 && next_seq_ == 0) {
      next_seq_ = message_seq;
    }
  }

  // discard_pending forgets every partly or fully received message not yet released: at an
  // epoch change, whatever arrived in the old epoch for the new one cannot be trusted.
  void discard_pending() noexcept {
    for (Slot& s : slots_) {
      s.in_use = false;
    }
    used_ = 0;
  }
  // retire gives the storage back for good once the handshake is over: nothing is stored or
  // handed out any more (no view can point into memory the engine freed), and next_seq
  // keeps telling the peer's repeats from new messages.
  void retire() noexcept {
    discard_pending();
    storage_ = {};
    max_message_ = 0;
  }
  // bytes_held is the storage in use (bodies and coverage bits).
  std::size_t bytes_held() const noexcept { return used_; }

 private:
  struct Slot {
    bool in_use = false;
    std::uint8_t msg_type = 0;
    std::uint16_t message_seq = 0;
    std::size_t length = 0;
    std::size_t received = 0;
    std::size_t at = 0;  // body in storage_[at, at + length), then its coverage bits
  };

  Slot* slot_for(const HandshakeFragment& f, FragmentOutcome& refused) noexcept;
  bool agrees(const Slot& s, const HandshakeFragment& f) const noexcept;
  void store(Slot& s, const HandshakeFragment& f) noexcept;

  std::span<std::uint8_t> storage_;
  std::size_t max_message_;
  std::size_t used_ = 0;  // bump allocation, reset when no slot is in use
  std::uint16_t next_seq_ = 0;
  std::array<Slot, kSlots> slots_{};
};

}  // namespace wireseal::dtls::detail
