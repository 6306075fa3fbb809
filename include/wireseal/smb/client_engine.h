#pragma once
// ClientEngine: what an SMB2 client adds on top of SecureChannel (secure_channel.h): message
// IDs, credit charges and the table of requests in flight, so many requests can be outstanding
// and responses are matched by MessageId in any order. A replayed or duplicated response finds
// no request and is rejected with kReplay.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "wireseal/result.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/secure_channel.h"

namespace wireseal::smb {

// Request describes one request for ClientEngine::send_request.
struct Request {
  Command command = Command::kEcho;
  std::uint16_t credit_charge = 1;  // §3.2.4.1.5: 1 + (payload - 1) / 65536 for large I/O
  std::uint16_t credit_request = 1;
  std::uint32_t tree_id = 0;
  std::uint32_t flags = 0;  // extra header flags (e.g. kFlagDfsOperations)
};

// Response is a matched final response, a view into the engine's receive buffer.
struct Response {
  std::uint64_t message_id = 0;
  Smb2Header header;
  std::span<std::uint8_t> body;
};

class ClientEngine {
 public:
  // ClientEngine builds the client side of a session (config.role is forced to kClient).
  // `first_message_id` is the next MessageId (after NEGOTIATE and SESSION_SETUP), `credits`
  // the credits granted so far, `max_in_flight` the size of the pending-request table.
  explicit ClientEngine(const SessionConfig& config, std::uint64_t first_message_id = 2,
                        std::uint32_t credits = 64, std::size_t max_in_flight = 64);
  // create is the constructor that never throws (kInvalidArgument, kOutOfMemory).
  static Result<ClientEngine> create(const SessionConfig& config,
                                     std::uint64_t first_message_id = 2, std::uint32_t credits = 64,
                                     std::size_t max_in_flight = 64) noexcept;

  // request_body is where the next request's body is written (after its header).
  std::span<std::uint8_t> request_body() noexcept { return channel_.outgoing_body(); }

  // Sent is the outcome of send_request: the request's MessageId and the frame to write.
  struct Sent {
    std::uint64_t message_id;
    std::span<const std::uint8_t> frame;
  };

  // send_request sends `request` with the body_len bytes written at request_body(): takes
  // credit_charge MessageIds and credits, records the request as in flight and returns the
  // frame. Errors: kBadState (not enough credits or the in-flight table is full: wait for
  // responses), kSequenceExhausted (MessageIds or nonces used up), kBufferTooSmall.
  Result<Sent> send_request(const Request& request, std::size_t body_len) noexcept;

  std::span<std::uint8_t> read_space() noexcept { return channel_.read_space(); }
  void commit(std::size_t n) noexcept { channel_.commit(n); }

  // poll returns the next final response matched to a request in flight (retiring it and
  // adding its granted credits), std::nullopt when more bytes are needed. Interim
  // STATUS_PENDING responses only add credits and are skipped. Errors: those of
  // SecureChannel::receive, kMalformed for a request-shaped message, kReplay for a response
  // whose MessageId is not in flight (duplicate, replayed or never sent).
  Result<std::optional<Response>> poll() noexcept;

  std::size_t in_flight() const noexcept { return in_flight_; }
  std::uint32_t credits() const noexcept { return credits_; }
  std::uint64_t next_message_id() const noexcept { return next_message_id_; }
  const ChannelCounters& counters() const noexcept { return channel_.counters(); }

 private:
  struct Slot {
    std::uint64_t message_id = 0;
    bool used = false;
  };
  std::size_t find_slot(std::uint64_t message_id) const noexcept;

  SecureChannel channel_;
  std::vector<Slot> slots_;  // open addressing on message_id, capacity a power of two
  std::size_t max_in_flight_;
  std::size_t in_flight_ = 0;
  std::uint64_t next_message_id_;
  std::uint32_t credits_;
};

}  // namespace wireseal::smb
