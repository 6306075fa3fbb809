// CLOSE (MS-SMB2 §2.2.15, §2.2.16) and FLUSH (§2.2.17, §2.2.18): a FileId and nothing else
// the client needs back.
#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

Result<std::size_t> encode_file_only(FileId file, std::span<std::uint8_t> body) noexcept {
  ByteWriter w(body);
  w.u16le(24);  // StructureSize of both CLOSE and FLUSH
  w.u16le(0);   // CLOSE Flags / FLUSH Reserved1
  w.u32le(0);
  w.u64le(file.persistent);
  w.u64le(file.volatile_id);
  return w.ok() ? Result<std::size_t>(w.size()) : Error::kBufferTooSmall;
}

}  // namespace

Result<std::size_t> encode_close(FileId file, std::span<std::uint8_t> body) noexcept {
  return encode_file_only(file, body);
}
Status parse_close(std::span<const std::uint8_t> message) noexcept {
  return expect_structure(message, 60);
}
Result<std::size_t> encode_flush(FileId file, std::span<std::uint8_t> body) noexcept {
  return encode_file_only(file, body);
}
Status parse_flush(std::span<const std::uint8_t> message) noexcept {
  return expect_structure(message, 4);
}

}  // namespace wireseal::smb::commands
