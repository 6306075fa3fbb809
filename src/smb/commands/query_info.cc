// QUERY_INFO (MS-SMB2 §2.2.37 request, §2.2.38 response) for FileNetworkOpenInformation
// ([MS-FSCC] §2.4.29): times, sizes and attributes in one answer.
#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr std::uint16_t kRequestStructureSize = 41;
constexpr std::uint8_t kInfoFile = 0x01;
constexpr std::uint8_t kFileNetworkOpenInformation = 34;
constexpr std::uint32_t kNetworkOpenSize = 56;

}  // namespace

Result<std::size_t> encode_query_file_info(FileId file, std::span<std::uint8_t> body) noexcept {
  ByteWriter w(body);
  w.u16le(kRequestStructureSize);
  w.u8(kInfoFile);
  w.u8(kFileNetworkOpenInformation);
  w.u32le(kNetworkOpenSize);  // OutputBufferLength
  w.u16le(0);                 // InputBufferOffset
  w.u16le(0);                 // Reserved
  w.u32le(0);                 // InputBufferLength
  w.u32le(0);                 // AdditionalInformation
  w.u32le(0);                 // Flags
  w.u64le(file.persistent);
  w.u64le(file.volatile_id);
  w.u8(0);  // the one-byte Buffer StructureSize 41 counts
  return w.ok() ? Result<std::size_t>(w.size()) : Error::kBufferTooSmall;
}

Result<FileInfo> parse_query_file_info(std::span<const std::uint8_t> message) noexcept {
  const Result<std::span<const std::uint8_t>> data = output_buffer(message);
  if (!data || data->size() < kNetworkOpenSize) {
    return Error::kMalformed;
  }
  ByteReader d(*data);
  FileInfo out;
  out.times = FileTimes{d.u64le(), d.u64le(), d.u64le(), d.u64le()};
  out.allocation_size = d.u64le();
  out.end_of_file = d.u64le();
  out.attributes = d.u32le();
  return out;
}

}  // namespace wireseal::smb::commands
