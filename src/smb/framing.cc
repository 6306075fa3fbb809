// Direct TCP framing (MS-SMB2 §2.1) and the sans-IO message pump.
#include "wireseal/smb/framing.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace wireseal::smb {

Status encode_frame_prefix(std::size_t message_len, std::span<std::uint8_t> out) noexcept {
  if (message_len > kMaxFrameLength) {
    return Error::kInvalidArgument;
  }
  if (out.size() < kFramePrefixSize) {
    return Error::kBufferTooSmall;
  }
  out[0] = 0;
  out[1] = static_cast<std::uint8_t>(message_len >> 16);
  out[2] = static_cast<std::uint8_t>(message_len >> 8);
  out[3] = static_cast<std::uint8_t>(message_len);
  return {};
}

Result<std::size_t> decode_frame_prefix(std::span<const std::uint8_t> bytes) noexcept {
  // §2.1: "Zero (1 byte)" then "StreamProtocolLength (3 bytes)" in network byte order.
  if (bytes.size() < kFramePrefixSize || bytes[0] != 0) {
    return Error::kMalformed;
  }
  return std::size_t{bytes[1]} << 16 | std::size_t{bytes[2]} << 8 | bytes[3];
}

MessagePump::MessagePump(std::size_t max_message_len) : max_message_len_(max_message_len) {
  if (max_message_len > kMaxFrameLength) {
    throw std::invalid_argument("wireseal::smb: max_message_len above the 24-bit frame limit");
  }
  buffer_.resize(2 * (kFramePrefixSize + max_message_len));
}

std::span<std::uint8_t> MessagePump::read_space() noexcept {
  if (failed_) {
    return {};
  }
  // Move the unread tail to the front only when the free space could not hold the rest of
  // the current frame: whole messages are never moved, and a partial one at most once.
  const std::size_t frame_room = kFramePrefixSize + max_message_len_;
  if (begin_ == end_) {
    begin_ = end_ = 0;
  } else if (buffer_.size() - begin_ < frame_room) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  return std::span<std::uint8_t>(buffer_).subspan(end_);
}

void MessagePump::commit(std::size_t n) noexcept { end_ += std::min(n, buffer_.size() - end_); }

Result<std::optional<std::span<std::uint8_t>>> MessagePump::next() noexcept {
  if (failed_) {
    return Error::kBadState;
  }
  const std::size_t available = end_ - begin_;
  if (available < kFramePrefixSize) {
    return std::optional<std::span<std::uint8_t>>{};
  }
  const std::span<std::uint8_t> rest = std::span<std::uint8_t>(buffer_).subspan(begin_, available);
  const Result<std::size_t> len = decode_frame_prefix(rest);
  if (!len || *len == 0 || *len > max_message_len_) {
    failed_ = true;
    return Error::kMalformed;
  }
  if (available - kFramePrefixSize < *len) {
    return std::optional<std::span<std::uint8_t>>{};
  }
  begin_ += kFramePrefixSize + *len;
  return std::optional<std::span<std::uint8_t>>{rest.subspan(kFramePrefixSize, *len)};
}

}  // namespace wireseal::smb
