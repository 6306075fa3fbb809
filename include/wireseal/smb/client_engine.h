#pragma once
// ClientEngine: a Connection (connection.h) with one session already set up — the shape of a
// client whose authentication happened elsewhere (tests, benchmarks, a session handed over
// from another process). It starts at `first_message_id` with `credits` granted and sends
// every request with the session's protection.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "wireseal/result.h"
#include "wireseal/smb/connection.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/session_config.h"

namespace wireseal::smb {

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
  std::span<std::uint8_t> request_body() noexcept { return connection_.request_body(); }

  // Sent is the outcome of send_request: the request's MessageId and the frame to write.
  struct Sent {
    std::uint64_t message_id;
    std::span<const std::uint8_t> frame;
  };

  // send_request sends `request` (its session_id is the engine's) with the body_len bytes
  // written at request_body(). Errors: those of Connection::add and flush.
  Result<Sent> send_request(const Request& request, std::size_t body_len) noexcept;

  std::span<std::uint8_t> read_space() noexcept { return connection_.read_space(); }
  void commit(std::size_t n) noexcept { connection_.commit(n); }
  // poll: Connection::poll.
  Result<std::optional<Response>> poll() noexcept { return connection_.poll(); }

  std::size_t in_flight() const noexcept { return connection_.in_flight(); }
  std::uint32_t credits() const noexcept { return connection_.credits(); }
  std::uint64_t next_message_id() const noexcept { return connection_.next_message_id(); }
  const ChannelCounters& counters() const noexcept { return connection_.counters(); }

 private:
  Connection connection_;
  std::uint64_t session_id_;
};

}  // namespace wireseal::smb
