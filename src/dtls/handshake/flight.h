// Flight: the messages of one outgoing flight (RFC 6347 §4.2.4), kept so the whole flight
// can be sent again, and packed into datagrams: each message cut into fragments that fit the
// path MTU, several records per datagram.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "record_writer.h"
#include "wireseal/result.h"

namespace wireseal::dtls::detail {

class Flight {
 public:
  static constexpr std::size_t kMaxEntries = 8;  // the longest flight has 6 records

  // clear starts a new flight (the previous one is forgotten).
  void clear() noexcept;
  bool empty() const noexcept { return count_ == 0; }

  // reserve makes room for the next message's body (at most `max_body` bytes; calling it
  // again resizes the same room) and returns it; commit_message records how much of it the
  // message took.
  Result<std::span<std::uint8_t>> reserve(std::size_t max_body) noexcept;
  Status commit_message(std::uint8_t msg_type, std::uint16_t message_seq, std::uint16_t epoch,
                        std::size_t body_size) noexcept;
  Status add_change_cipher_spec() noexcept;
  // last_body is the body of the message committed last.
  std::span<const std::uint8_t> last_body() const noexcept;
  std::span<const std::uint8_t> body(std::size_t index) const noexcept;
  std::uint8_t msg_type(std::size_t index) const noexcept { return entries_[index].msg_type; }

  // rewind makes the whole flight pending again (a retransmission).
  void rewind() noexcept;
  bool pending() const noexcept { return next_ < count_; }

  // pack writes the next datagram of the pending records into `out` (at most `mtu` bytes)
  // and returns its length; kBufferTooSmall if not even one fragment fits.
  Result<std::size_t> pack(RecordWriter& writer, std::span<std::uint8_t> out,
                           std::size_t mtu) noexcept;

  std::size_t capacity() const noexcept { return bytes_.capacity(); }
  void shrink() noexcept;

 private:
  struct Entry {
    std::uint8_t msg_type = 0;  // handshake type; kChangeCipherSpecEntry for the CCS record
    std::uint16_t message_seq = 0;
    std::uint16_t epoch = 0;
    std::size_t at = 0;
    std::size_t length = 0;
  };
  static constexpr std::uint8_t kChangeCipherSpecEntry = 0xff;

  std::size_t end_of_messages() const noexcept;
  Result<std::size_t> pack_entry(RecordWriter& writer, const Entry& e, std::span<std::uint8_t> out);

  std::vector<std::uint8_t> bytes_;  // message bodies, back to back
  std::array<Entry, kMaxEntries> entries_{};
  std::size_t count_ = 0;
  std::size_t next_ = 0;    // next entry to send
  std::size_t offset_ = 0;  // bytes of entries_[next_] already sent
};

}  // namespace wireseal::dtls::detail
