// CREATE (MS-SMB2 §2.2.13 request, §2.2.14 response): opens or creates a file or directory.
#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr std::uint16_t kRequestStructureSize = 57;
constexpr std::uint16_t kResponseStructureSize = 89;
constexpr std::size_t kRequestFixedSize = 56;
constexpr std::uint32_t kImpersonation = 2;  // SECURITY_IMPERSONATION

}  // namespace

Result<std::size_t> encode_create(const CreateRequest& r, std::span<std::uint8_t> body) noexcept {
  const std::size_t name_len = utf16_size(r.path);
  if (name_len > 0xFFFF) {
    return Error::kInvalidArgument;
  }
  ByteWriter w(body);
  w.u16le(kRequestStructureSize);
  w.u8(0);  // SecurityFlags
  w.u8(0);  // RequestedOplockLevel: none (the client caches nothing)
  w.u32le(kImpersonation);
  w.u64le(0);  // SmbCreateFlags
  w.u64le(0);  // Reserved
  w.u32le(r.desired_access);
  w.u32le(r.file_attributes);
  w.u32le(r.share_access);
  w.u32le(r.disposition);
  w.u32le(r.options);
  w.u16le(static_cast<std::uint16_t>(kHeaderSize + kRequestFixedSize));
  w.u16le(static_cast<std::uint16_t>(name_len));
  w.u32le(0);  // CreateContextsOffset
  w.u32le(0);  // CreateContextsLength
  const std::span<std::uint8_t> name = w.reserve(name_len);
  // The variable part is at least one byte even for the share root's empty name (§2.2.13).
  if (name_len == 0) {
    w.u8(0);
  }
  if (!w.ok()) {
    return Error::kBufferTooSmall;
  }
  write_path(r.path, name);
  return w.size();
}

Result<CreateResponse> parse_create(std::span<const std::uint8_t> message) noexcept {
  const Result<std::span<const std::uint8_t>> body = body_of(message, kResponseStructureSize);
  if (!body) {
    return body.error();
  }
  ByteReader r(*body);
  r.skip(4);  // StructureSize, OplockLevel, Flags
  CreateResponse out;
  out.create_action = r.u32le();
  out.times = FileTimes{r.u64le(), r.u64le(), r.u64le(), r.u64le()};
  out.allocation_size = r.u64le();
  out.end_of_file = r.u64le();
  out.file_attributes = r.u32le();
  r.skip(4);
  out.file_id.persistent = r.u64le();
  out.file_id.volatile_id = r.u64le();
  return r.ok() ? Result<CreateResponse>(out) : Error::kMalformed;
}

}  // namespace wireseal::smb::commands
