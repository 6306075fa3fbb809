// SMB2 header codec (MS-SMB2 §2.2.1) and compound-chain layout (§3.2.4.1.4).
#include "wireseal/smb/header.h"

#include <algorithm>
#include <cstring>

#include "le.h"

namespace wireseal::smb {
namespace {

using wire::load_le16;
using wire::load_le32;
using wire::load_le64;
using wire::store_le16;
using wire::store_le32;
using wire::store_le64;

constexpr std::uint8_t kProtocolId[4] = {0xFE, 'S', 'M', 'B'};
constexpr std::size_t kChainAlignment = 8;  // §3.2.4.1.4: each header starts 8-byte aligned

}  // namespace

bool is_smb2_message(std::span<const std::uint8_t> bytes) noexcept {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), kProtocolId, 4) == 0;
}

//   0  ProtocolId (4)  4 StructureSize (2)  6 CreditCharge (2)  8 Status (4)
//  12  Command (2)    14 Credits (2)       16 Flags (4)        20 NextCommand (4)
//  24  MessageId (8)  32 Reserved/ProcessId (4) + TreeId (4)  | AsyncId (8)
//  40  SessionId (8)  48 Signature (16)
Status encode_header(const Smb2Header& h, std::span<std::uint8_t> out) noexcept {
  if (out.size() < kHeaderSize) {
    return Error::kBufferTooSmall;
  }
  std::uint8_t* p = out.data();
  std::memcpy(p, kProtocolId, 4);
  store_le16(p + 4, static_cast<std::uint16_t>(kHeaderSize));
  store_le16(p + 6, h.credit_charge);
  store_le32(p + 8, h.status);
  store_le16(p + 12, static_cast<std::uint16_t>(h.command));
  store_le16(p + 14, h.credits);
  store_le32(p + 16, h.flags);
  store_le32(p + 20, h.next_command);
  store_le64(p + 24, h.message_id);
  if (h.is_async()) {
    store_le64(p + 32, h.async_id);
  } else {
    store_le32(p + 32, h.process_id);
    store_le32(p + 36, h.tree_id);
  }
  store_le64(p + 40, h.session_id);
  std::memcpy(p + kSignatureOffset, h.signature.data(), kSignatureSize);
  return {};
}

Result<Smb2Header> decode_header(std::span<const std::uint8_t> message) noexcept {
  if (message.size() < kHeaderSize || !is_smb2_message(message)) {
    return Error::kMalformed;
  }
  const std::uint8_t* p = message.data();
  if (load_le16(p + 4) != kHeaderSize) {
    return Error::kMalformed;
  }
  Smb2Header h;
  h.credit_charge = load_le16(p + 6);
  h.status = load_le32(p + 8);
  h.command = static_cast<Command>(load_le16(p + 12));
  h.credits = load_le16(p + 14);
  h.flags = load_le32(p + 16);
  h.next_command = load_le32(p + 20);
  h.message_id = load_le64(p + 24);
  if (h.is_async()) {
    h.async_id = load_le64(p + 32);
  } else {
    h.process_id = load_le32(p + 32);
    h.tree_id = load_le32(p + 36);
  }
  h.session_id = load_le64(p + 40);
  std::memcpy(h.signature.data(), p + kSignatureOffset, kSignatureSize);
  return h;
}

Result<std::span<std::uint8_t>> ChainCursor::next() noexcept {
  if (rest_.empty()) {
    return Error::kBadState;
  }
  if (rest_.size() < kHeaderSize || !is_smb2_message(rest_)) {
    rest_ = {};
    return Error::kMalformed;
  }
  const std::size_t next = load_le32(rest_.data() + 20);
  if (next == 0) {
    const std::span<std::uint8_t> last = rest_;
    rest_ = {};
    return last;
  }
  // A NextCommand that is unaligned, shorter than a header, or past the end would make the
  // chain ambiguous: reject the whole remainder rather than guess.
  if (next % kChainAlignment != 0 || next < kHeaderSize || next >= rest_.size()) {
    rest_ = {};
    return Error::kMalformed;
  }
  const std::span<std::uint8_t> message = rest_.first(next);
  rest_ = rest_.subspan(next);
  return message;
}

Result<std::span<std::uint8_t>> ChainBuilder::append(const Smb2Header& header,
                                                     std::size_t body_len) noexcept {
  const std::size_t start =
      empty_ ? 0 : (end_ + kChainAlignment - 1) / kChainAlignment * kChainAlignment;
  if (start > buffer_.size() || buffer_.size() - start < kHeaderSize ||
      buffer_.size() - start - kHeaderSize < body_len) {
    return Error::kBufferTooSmall;
  }
  Smb2Header h = header;
  h.next_command = 0;
  static_cast<void>(encode_header(h, buffer_.subspan(start)));
  if (!empty_) {
    // Padding between messages is zero so the bytes a signature covers are deterministic.
    std::fill(buffer_.begin() + static_cast<std::ptrdiff_t>(end_),
              buffer_.begin() + static_cast<std::ptrdiff_t>(start), std::uint8_t{0});
    store_le32(buffer_.data() + last_ + 20, static_cast<std::uint32_t>(start - last_));
  }
  empty_ = false;
  last_ = start;
  end_ = start + kHeaderSize + body_len;
  return buffer_.subspan(start + kHeaderSize, body_len);
}

}  // namespace wireseal::smb
