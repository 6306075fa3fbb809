// READ (MS-SMB2 §2.2.19 request, §2.2.20 response).
#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr std::uint16_t kRequestStructureSize = 49;
constexpr std::uint16_t kResponseStructureSize = 17;
// kResponseDataOffset asks the server to put the data right after the response's fixed part
// (64 + 16), where a client expects it.
constexpr std::uint8_t kResponseDataOffset = 0x50;

}  // namespace

Result<std::size_t> encode_read(const ReadRequest& r, std::span<std::uint8_t> body) noexcept {
  ByteWriter w(body);
  w.u16le(kRequestStructureSize);
  w.u8(kResponseDataOffset);
  w.u8(0);  // Flags
  w.u32le(r.length);
  w.u64le(r.offset);
  w.u64le(r.file.persistent);
  w.u64le(r.file.volatile_id);
  w.u32le(r.minimum_count);
  w.u32le(0);  // Channel
  w.u32le(0);  // RemainingBytes
  w.u16le(0);  // ReadChannelInfoOffset
  w.u16le(0);  // ReadChannelInfoLength
  w.u8(0);     // the one-byte Buffer StructureSize 49 counts
  return w.ok() ? Result<std::size_t>(w.size()) : Error::kBufferTooSmall;
}

Result<std::span<const std::uint8_t>> parse_read(std::span<const std::uint8_t> message) noexcept {
  const Result<std::span<const std::uint8_t>> body = body_of(message, kResponseStructureSize);
  if (!body) {
    return body.error();
  }
  ByteReader r(*body);
  r.skip(2);
  const std::uint8_t offset = r.u8();
  r.skip(1);
  const std::uint32_t length = r.u32le();
  if (!r.ok()) {
    return Error::kMalformed;
  }
  return buffer_at(message, offset, length);
}

}  // namespace wireseal::smb::commands
