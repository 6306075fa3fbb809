// QUERY_DIRECTORY (MS-SMB2 §2.2.33 request, §2.2.34 response), listing with
// FileDirectoryInformation ([MS-FSCC] §2.4.10).
#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr std::uint16_t kRequestStructureSize = 33;
constexpr std::size_t kRequestFixedSize = 32;
constexpr std::uint8_t kFileDirectoryInformation = 0x01;
constexpr std::uint8_t kRestartScans = 0x01;
constexpr std::size_t kEntryFixedSize = 64;

}  // namespace

Result<std::size_t> encode_query_directory(const QueryDirectoryRequest& r,
                                           std::span<std::uint8_t> body) noexcept {
  const std::size_t pattern_len = utf16_size(r.pattern);
  if (pattern_len > 0xFFFF) {
    return Error::kInvalidArgument;
  }
  ByteWriter w(body);
  w.u16le(kRequestStructureSize);
  w.u8(kFileDirectoryInformation);
  w.u8(r.restart ? kRestartScans : 0);
  w.u32le(0);  // FileIndex
  w.u64le(r.directory.persistent);
  w.u64le(r.directory.volatile_id);
  w.u16le(static_cast<std::uint16_t>(kHeaderSize + kRequestFixedSize));
  w.u16le(static_cast<std::uint16_t>(pattern_len));
  w.u32le(r.output_length);
  const std::span<std::uint8_t> pattern = w.reserve(pattern_len);
  if (pattern_len == 0) {
    w.u8(0);
  }
  if (!w.ok()) {
    return Error::kBufferTooSmall;
  }
  write_utf16(r.pattern, pattern);
  return w.size();
}

Result<std::span<const std::uint8_t>> parse_query_directory(
    std::span<const std::uint8_t> message) noexcept {
  return output_buffer(message);
}

//   0 NextEntryOffset  4 FileIndex  8 CreationTime 16 LastAccessTime 24 LastWriteTime
//  32 ChangeTime      40 EndOfFile 48 AllocationSize 56 FileAttributes 60 FileNameLength
//  64 FileName
Result<DirectoryEntry> parse_directory_entry(std::span<const std::uint8_t> entry,
                                             std::uint32_t& next_offset) {
  ByteReader r(entry);
  next_offset = r.u32le();
  r.skip(4);
  DirectoryEntry out;
  out.times = FileTimes{r.u64le(), r.u64le(), r.u64le(), r.u64le()};
  out.end_of_file = r.u64le();
  r.skip(8);
  out.attributes = r.u32le();
  const std::uint32_t name_len = r.u32le();
  const std::span<const std::uint8_t> name = r.bytes(name_len);
  // The next entry must start after this one's name, so the walk always advances.
  if (!r.ok() || (next_offset != 0 &&
                  (next_offset < kEntryFixedSize + name_len || next_offset > entry.size()))) {
    return Error::kMalformed;
  }
  out.name = read_utf16(name);
  return out;
}

}  // namespace wireseal::smb::commands
