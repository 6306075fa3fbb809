// SET_INFO (MS-SMB2 §2.2.39 request, §2.2.40 response) for the file information classes a
// client changes ([MS-FSCC] §2.4): end of file (size), basic (times), rename, disposition
// (delete).
#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr std::uint16_t kRequestStructureSize = 33;
constexpr std::uint16_t kResponseStructureSize = 2;
constexpr std::size_t kRequestFixedSize = 32;
constexpr std::uint8_t kInfoFile = 0x01;
constexpr std::uint8_t kFileBasicInformation = 4;
constexpr std::uint8_t kFileRenameInformation = 10;
constexpr std::uint8_t kFileDispositionInformation = 13;
constexpr std::uint8_t kFileEndOfFileInformation = 20;

// set_info writes the fixed part for `info_class` with a buffer of `length` bytes and returns
// the buffer for the caller to fill (empty when it does not fit: the writer has failed).
std::span<std::uint8_t> set_info(ByteWriter& w, FileId file, std::uint8_t info_class,
                                 std::size_t length) noexcept {
  w.u16le(kRequestStructureSize);
  w.u8(kInfoFile);
  w.u8(info_class);
  w.u32le(static_cast<std::uint32_t>(length));
  w.u16le(static_cast<std::uint16_t>(kHeaderSize + kRequestFixedSize));
  w.u16le(0);  // Reserved
  w.u32le(0);  // AdditionalInformation
  w.u64le(file.persistent);
  w.u64le(file.volatile_id);
  return w.reserve(length);
}

Result<std::size_t> finished(const ByteWriter& w) noexcept {
  return w.ok() ? Result<std::size_t>(w.size()) : Error::kBufferTooSmall;
}

}  // namespace

Result<std::size_t> encode_set_end_of_file(FileId file, std::uint64_t size,
                                           std::span<std::uint8_t> body) noexcept {
  ByteWriter w(body);
  ByteWriter info(set_info(w, file, kFileEndOfFileInformation, 8));
  info.u64le(size);
  return finished(w);
}

Result<std::size_t> encode_set_times(FileId file, const FileTimes& t,
                                     std::span<std::uint8_t> body) noexcept {
  ByteWriter w(body);
  // A zero time means "leave unchanged" (§2.4.7), so only the given times change.
  ByteWriter info(set_info(w, file, kFileBasicInformation, 40));
  info.u64le(t.creation);
  info.u64le(t.last_access);
  info.u64le(t.last_write);
  info.u64le(t.change);
  info.u32le(0);  // FileAttributes: unchanged
  info.u32le(0);
  return finished(w);
}

Result<std::size_t> encode_rename(FileId file, std::string_view new_path, bool replace,
                                  std::span<std::uint8_t> body) noexcept {
  const std::size_t name_len = utf16_size(new_path);
  if (name_len > 0xFFFF) {
    return Error::kInvalidArgument;
  }
  ByteWriter w(body);
  // FILE_RENAME_INFORMATION_TYPE_2 (§2.2.39): the SMB2 layout with a 64-bit RootDirectory.
  ByteWriter info(set_info(w, file, kFileRenameInformation, 20 + name_len));
  info.u8(replace ? 1 : 0);
  info.zeros(7);
  info.u64le(0);  // RootDirectory
  info.u32le(static_cast<std::uint32_t>(name_len));
  const std::span<std::uint8_t> name = info.reserve(name_len);
  if (!w.ok() || !info.ok()) {
    return Error::kBufferTooSmall;
  }
  write_path(new_path, name);
  return w.size();
}

Result<std::size_t> encode_set_delete(FileId file, std::span<std::uint8_t> body) noexcept {
  ByteWriter w(body);
  ByteWriter info(set_info(w, file, kFileDispositionInformation, 1));
  info.u8(1);  // DeletePending
  return finished(w);
}

Status parse_set_info(std::span<const std::uint8_t> message) noexcept {
  return expect_structure(message, kResponseStructureSize);
}

}  // namespace wireseal::smb::commands
