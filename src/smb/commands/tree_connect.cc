// TREE_CONNECT (MS-SMB2 §2.2.9 request, §2.2.10 response); TREE_DISCONNECT is an empty body.
#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr std::uint16_t kRequestStructureSize = 9;
constexpr std::uint16_t kResponseStructureSize = 16;
constexpr std::size_t kRequestFixedSize = 8;

}  // namespace

Result<std::size_t> encode_tree_connect(std::string_view unc_path,
                                        std::span<std::uint8_t> body) noexcept {
  const std::size_t path_len = utf16_size(unc_path);
  if (path_len > 0xFFFF) {
    return Error::kInvalidArgument;
  }
  ByteWriter w(body);
  w.u16le(kRequestStructureSize);
  w.u16le(0);  // Flags
  w.u16le(static_cast<std::uint16_t>(kHeaderSize + kRequestFixedSize));
  w.u16le(static_cast<std::uint16_t>(path_len));
  const std::span<std::uint8_t> path = w.reserve(path_len);
  if (!w.ok()) {
    return Error::kBufferTooSmall;
  }
  write_utf16(unc_path, path);
  return w.size();
}

Result<TreeConnectResponse> parse_tree_connect(std::span<const std::uint8_t> message) noexcept {
  const Result<std::span<const std::uint8_t>> body = body_of(message, kResponseStructureSize);
  if (!body) {
    return body.error();
  }
  ByteReader r(*body);
  r.skip(2);
  TreeConnectResponse out;
  out.share_type = r.u8();
  r.skip(1);
  out.share_flags = r.u32le();
  out.capabilities = r.u32le();
  out.maximal_access = r.u32le();
  return r.ok() ? Result<TreeConnectResponse>(out) : Error::kMalformed;
}

}  // namespace wireseal::smb::commands
