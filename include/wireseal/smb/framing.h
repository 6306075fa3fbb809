#pragma once
// Direct TCP transport framing (MS-SMB2 §2.1): every SMB2 message (or transformed message) is
// preceded by a 4-byte prefix, a zero byte and a 24-bit big-endian length.
//
// MessagePump turns a byte stream into whole messages, sans-IO: the caller reads from its
// transport into read_space(), reports the count with commit(), then drains next(). Several
// messages per read and messages split over many reads are both handled. A message that is
// whole in the buffer is returned as a view into it (no copy); only the bytes of an incomplete
// trailing message are moved to the front, when read_space() needs the room.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "wireseal/result.h"

namespace wireseal::smb {

inline constexpr std::size_t kFramePrefixSize = 4;
inline constexpr std::size_t kMaxFrameLength = 0xFFFFFF;  // 24 bits

// encode_frame_prefix writes the prefix for a `message_len`-byte message into out[0, 4).
// kInvalidArgument when message_len exceeds kMaxFrameLength, kBufferTooSmall when out is short.
Status encode_frame_prefix(std::size_t message_len, std::span<std::uint8_t> out) noexcept;

// decode_frame_prefix reads the message length from bytes[0, 4). kMalformed when fewer than 4
// bytes are given or the first byte is not zero.
Result<std::size_t> decode_frame_prefix(std::span<const std::uint8_t> bytes) noexcept;

class MessagePump {
 public:
  // MessagePump allocates its buffer once: room for one frame of max_message_len bytes plus
  // read-ahead (the capacity is 2 * (4 + max_message_len), so a read can bring in the start
  // of the next message too). max_message_len above kMaxFrameLength throws
  // std::invalid_argument.
  explicit MessagePump(std::size_t max_message_len);

  // read_space is where the caller's next read goes; never empty unless the pump failed.
  // Calling it invalidates the views previously returned by next().
  std::span<std::uint8_t> read_space() noexcept;

  // commit records that `n` bytes were read into read_space() (n <= its size; larger values
  // are clamped).
  void commit(std::size_t n) noexcept;

  // next returns the next whole message (without its prefix) as a view into the pump's
  // buffer, valid until the next read_space() call, or std::nullopt when more bytes are
  // needed. kMalformed when a prefix is bad or announces a message longer than
  // max_message_len or empty; the stream cannot be resynchronised, so every later call
  // returns kBadState.
  Result<std::optional<std::span<std::uint8_t>>> next() noexcept;

  // buffered is the number of received bytes not yet returned by next().
  std::size_t buffered() const noexcept { return end_ - begin_; }
  std::size_t max_message_len() const noexcept { return max_message_len_; }

 private:
  std::vector<std::uint8_t> buffer_;
  std::size_t max_message_len_;
  std::size_t begin_ = 0;  // first byte not yet returned
  std::size_t end_ = 0;    // end of received bytes
  bool failed_ = false;
};

}  // namespace wireseal::smb
