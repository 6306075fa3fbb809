// WRITE (MS-SMB2 §2.2.21 request, §2.2.22 response).
#include <algorithm>

#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr std::uint16_t kRequestStructureSize = 49;
constexpr std::uint16_t kResponseStructureSize = 17;

}  // namespace

Result<std::size_t> encode_write(const WriteRequest& r, std::span<std::uint8_t> body) noexcept {
  // A zero-length write still carries the one-byte buffer StructureSize 49 counts.
  const std::size_t body_len = kWriteDataOffset + std::max<std::uint32_t>(r.length, 1);
  if (body.size() < body_len) {
    return Error::kBufferTooSmall;
  }
  ByteWriter w(body);
  w.u16le(kRequestStructureSize);
  w.u16le(static_cast<std::uint16_t>(kHeaderSize + kWriteDataOffset));
  w.u32le(r.length);
  w.u64le(r.offset);
  w.u64le(r.file.persistent);
  w.u64le(r.file.volatile_id);
  w.u32le(0);  // Channel
  w.u32le(0);  // RemainingBytes
  w.u16le(0);  // WriteChannelInfoOffset
  w.u16le(0);  // WriteChannelInfoLength
  w.u32le(0);  // Flags
  if (r.length == 0) {
    w.u8(0);
  }
  return body_len;
}

Result<std::uint32_t> parse_write(std::span<const std::uint8_t> message) noexcept {
  const Result<std::span<const std::uint8_t>> body = body_of(message, kResponseStructureSize);
  if (!body) {
    return body.error();
  }
  ByteReader r(*body);
  r.skip(4);
  const std::uint32_t count = r.u32le();
  return r.ok() ? Result<std::uint32_t>(count) : Error::kMalformed;
}

}  // namespace wireseal::smb::commands
