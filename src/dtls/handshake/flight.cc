#include "flight.h"

#include <algorithm>
#include <new>

#include "codec.h"
#include "common/byte_cursor.h"
#include "wireseal/dtls/handshake/message.h"

namespace wireseal::dtls::detail {

void Flight::clear() noexcept {
  bytes_.clear();
  count_ = 0;
  next_ = 0;
  offset_ = 0;
}

void Flight::shrink() noexcept {
  try {
    bytes_.shrink_to_fit();
  } catch (const std::bad_alloc&) {  // keeping the larger buffer is harmless
  }
}

Result<std::span<std::uint8_t>> Flight::reserve(std::size_t max_body) noexcept {
  if (count_ == kMaxEntries) {
    return Error::kTableFull;
  }
  const std::size_t at = end_of_messages();
  try {
    bytes_.resize(at + max_body);
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  return std::span<std::uint8_t>(bytes_).subspan(at);
}

Status Flight::commit_message(std::uint8_t msg_type, std::uint16_t message_seq, std::uint16_t epoch,
                              std::size_t body_size) noexcept {
  // reserve() sized bytes_ to at + max_body; the message starts where the last one ended.
  const std::size_t at = end_of_messages();
  if (count_ == kMaxEntries || at + body_size > bytes_.size()) {
    return Error::kBadState;
  }
  bytes_.resize(at + body_size);
  entries_[count_++] = Entry{msg_type, message_seq, epoch, at, body_size};
  return {};
}

Status Flight::add_change_cipher_spec() noexcept {
  if (count_ == kMaxEntries) {
    return Error::kTableFull;
  }
  const std::size_t at = end_of_messages();
  entries_[count_++] = Entry{kChangeCipherSpecEntry, 0, 0, at, 0};
  return {};
}

std::size_t Flight::end_of_messages() const noexcept {
  return count_ == 0 ? 0 : entries_[count_ - 1].at + entries_[count_ - 1].length;
}

std::span<const std::uint8_t> Flight::body(std::size_t index) const noexcept {
  const Entry& e = entries_[index];
  return std::span<const std::uint8_t>(bytes_).subspan(e.at, e.length);
}

std::span<const std::uint8_t> Flight::last_body() const noexcept {
  return count_ == 0 ? std::span<const std::uint8_t>{} : body(count_ - 1);
}

void Flight::rewind() noexcept {
  next_ = 0;
  offset_ = 0;
}

// pack_entry writes one record of entries_[next_] (the CCS, or the next fragment of a
// message) at the start of `out`; 0 when nothing of it fits.
Result<std::size_t> Flight::pack_entry(RecordWriter& writer, const Entry& e,
                                       std::span<std::uint8_t> out) {
  if (e.msg_type == kChangeCipherSpecEntry) {
    if (writer.sealed_size(0, 1) > out.size()) {
      return std::size_t{0};
    }
    out[writer.payload_offset(0)] = 1;
    Result<std::size_t> n = writer.write(0, ContentType::kChangeCipherSpec, out, 1);
    if (n) {
      ++next_;
    }
    return n;
  }
  const std::size_t room = writer.max_plaintext(e.epoch, out.size());
  const std::size_t left = e.length - offset_;
  if (room < kHandshakeHeaderSize || (room == kHandshakeHeaderSize && left != 0)) {
    return std::size_t{0};
  }
  const std::size_t fragment = std::min(left, room - kHandshakeHeaderSize);
  const std::size_t payload = writer.payload_offset(e.epoch);
  ByteWriter w(out.subspan(payload));
  write_handshake_header(w, e.msg_type, e.length, e.message_seq, offset_, fragment);
  w.bytes(std::span<const std::uint8_t>(bytes_).subspan(e.at + offset_, fragment));
  if (!w.ok()) {
    return Error::kBufferTooSmall;
  }
  Result<std::size_t> n =
      writer.write(e.epoch, ContentType::kHandshake, out, kHandshakeHeaderSize + fragment);
  if (n) {
    offset_ += fragment;
    if (offset_ == e.length) {
      ++next_;
      offset_ = 0;
    }
  }
  return n;
}

Result<std::size_t> Flight::pack(RecordWriter& writer, std::span<std::uint8_t> out,
                                 std::size_t mtu) noexcept {
  const std::span<std::uint8_t> datagram = out.first(std::min(out.size(), mtu));
  std::size_t used = 0;
  while (next_ < count_) {
    Result<std::size_t> n = pack_entry(writer, entries_[next_], datagram.subspan(used));
    if (!n) {
      return n.error();
    }
    if (*n == 0) {
      break;
    }
    used += *n;
  }
  if (used == 0 && next_ < count_) {
    return Error::kBufferTooSmall;
  }
  return used;
}

}  // namespace wireseal::dtls::detail
