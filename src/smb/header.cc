// SMB2 header codec (MS-SMB2 §2.2.1) and compound-chain layout (§3.2.4.1.4).
#include "wireseal/smb/header.h"

#include <algorithm>
#include <cstring>

#include "common/byte_cursor.h"
#include "common/bytes.h"

namespace wireseal::smb {
namespace {

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
// The codec writes and reads the fields in wire order, so it reads like the table above; the
// size is checked first, so the cursor never fails (and, its size being a constant, its checks
// fold away).
Status encode_header(const Smb2Header& h, std::span<std::uint8_t> out) noexcept {
  if (out.size() < kHeaderSize) {
    return Error::kBufferTooSmall;
  }
  ByteWriter w(out.first(kHeaderSize));
  w.bytes(kProtocolId);
  w.u16le(static_cast<std::uint16_t>(kHeaderSize));
  w.u16le(h.credit_charge);
  w.u32le(h.status);
  w.u16le(static_cast<std::uint16_t>(h.command));
  w.u16le(h.credits);
  w.u32le(h.flags);
  w.u32le(h.next_command);
  w.u64le(h.message_id);
  if (h.is_async()) {
    w.u64le(h.async_id);
  } else {
    w.u32le(h.process_id);
    w.u32le(h.tree_id);
  }
  w.u64le(h.session_id);
  static_assert(kSignatureOffset + kSignatureSize == kHeaderSize);
  w.bytes(h.signature);
  return {};
}

Result<Smb2Header> decode_header(std::span<const std::uint8_t> message) noexcept {
  if (message.size() < kHeaderSize || !is_smb2_message(message)) {
    return Error::kMalformed;
  }
  ByteReader r(message.first(kHeaderSize));
  r.skip(sizeof(kProtocolId));  // checked by is_smb2_message
  if (r.u16le() != kHeaderSize) {
    return Error::kMalformed;
  }
  Smb2Header h;
  h.credit_charge = r.u16le();
  h.status = r.u32le();
  h.command = static_cast<Command>(r.u16le());
  h.credits = r.u16le();
  h.flags = r.u32le();
  h.next_command = r.u32le();
  h.message_id = r.u64le();
  if (h.is_async()) {
    h.async_id = r.u64le();
  } else {
    h.process_id = r.u32le();
    h.tree_id = r.u32le();
  }
  h.session_id = r.u64le();
  r.copy_to(h.signature);
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
