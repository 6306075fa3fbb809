// SESSION_SETUP (MS-SMB2 §2.2.5 request, §2.2.6 response): carries the GSS (SPNEGO) tokens.
#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr std::uint16_t kRequestStructureSize = 25;
constexpr std::uint16_t kResponseStructureSize = 9;
constexpr std::size_t kRequestFixedSize = 24;

}  // namespace

Result<std::size_t> encode_session_setup(const SessionSetupRequest& r,
                                         std::span<std::uint8_t> body) noexcept {
  if (r.security_buffer.size() > 0xFFFF) {
    return Error::kInvalidArgument;
  }
  ByteWriter w(body);
  w.u16le(kRequestStructureSize);
  w.u8(r.flags);
  w.u8(r.security_mode);
  w.u32le(0);  // Capabilities: only DFS is defined, and not asked for
  w.u32le(0);  // Channel
  w.u16le(static_cast<std::uint16_t>(kHeaderSize + kRequestFixedSize));
  w.u16le(static_cast<std::uint16_t>(r.security_buffer.size()));
  w.u64le(0);  // PreviousSessionId
  w.bytes(r.security_buffer);
  return w.ok() ? Result<std::size_t>(w.size()) : Error::kBufferTooSmall;
}

Result<SessionSetupResponse> parse_session_setup(std::span<const std::uint8_t> message) noexcept {
  const Result<std::span<const std::uint8_t>> body = body_of(message, kResponseStructureSize);
  if (!body) {
    return body.error();
  }
  ByteReader r(*body);
  r.skip(2);
  SessionSetupResponse out;
  out.session_flags = r.u16le();
  const std::uint16_t offset = r.u16le();
  const std::uint16_t length = r.u16le();
  const Result<std::span<const std::uint8_t>> buffer = buffer_at(message, offset, length);
  if (!r.ok() || !buffer) {
    return Error::kMalformed;
  }
  out.security_buffer = *buffer;
  return out;
}

}  // namespace wireseal::smb::commands
