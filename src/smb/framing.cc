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
  if (begin_ == end_) {
    begin_ = end_ = 0;
  }
  // The frame being received: its end once its prefix is in, else as large as any frame.
  std::size_t frame_end = begin_ + kFramePrefixSize + max_message_len_;
  const std::size_t available = end_ - begin_;
  if (available >= kFramePrefixSize) {
    const Result<std::size_t> len =
        decode_frame_prefix(std::span(buffer_).subspan(begin_, available));
    if (len && *len <= max_message_len_) {
      frame_end = begin_ + kFramePrefixSize + *len;
    }
  }
  // Move the unread tail to the front only when the rest of the current frame would not fit:
  // whole messages are never moved, a partial one at most once.
  if (frame_end > buffer_.size()) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, available);
    frame_end -= begin_;
    end_ = available;
    begin_ = 0;
  }
  // While a large frame is still arriving, read no further than its end: the next frame then
  // starts at the front of an emptied buffer instead of being moved there later. Small frames
  // are read many per call.
  constexpr std::size_t kLargeRemainder = 64 * 1024;
  if (frame_end > end_ && frame_end - end_ >= kLargeRemainder) {
    return std::span<std::uint8_t>(buffer_).subspan(end_, frame_end - end_);
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
