// IOCTL FSCTL_VALIDATE_NEGOTIATE_INFO (MS-SMB2 §2.2.31.4 request, §2.2.32.6 response): after
// a 3.0 or 3.0.2 session is signed, the client repeats what it offered in NEGOTIATE and the
// server what it chose, under the session's signature, so a man in the middle who rewrote the
// unsigned NEGOTIATE (to strip encryption or force a weaker dialect) is caught. 3.1.1 replaces
// this with the preauth integrity hash.
#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr std::uint16_t kRequestStructureSize = 57;
constexpr std::uint16_t kResponseStructureSize = 49;
constexpr std::size_t kRequestFixedSize = 56;
constexpr std::uint32_t kFsctlValidateNegotiateInfo = 0x00140204;
constexpr std::uint32_t kIoctlIsFsctl = 0x00000001;
constexpr std::uint32_t kValidateResponseSize = 24;

}  // namespace

Result<std::size_t> encode_validate_negotiate(const ValidateNegotiate& v,
                                              std::span<std::uint8_t> body) noexcept {
  const std::size_t input_len = 24 + 2 * v.dialects.size();
  ByteWriter w(body);
  w.u16le(kRequestStructureSize);
  w.u16le(0);
  w.u32le(kFsctlValidateNegotiateInfo);
  w.u64le(kRelatedFileId.persistent);  // no file: all ones
  w.u64le(kRelatedFileId.volatile_id);
  w.u32le(static_cast<std::uint32_t>(kHeaderSize + kRequestFixedSize));  // InputOffset
  w.u32le(static_cast<std::uint32_t>(input_len));
  w.u32le(0);                      // MaxInputResponse
  w.u32le(0);                      // OutputOffset
  w.u32le(0);                      // OutputCount
  w.u32le(kValidateResponseSize);  // MaxOutputResponse
  w.u32le(kIoctlIsFsctl);
  w.u32le(0);  // Reserved2
  w.u32le(v.capabilities);
  w.bytes(v.guid);
  w.u16le(v.security_mode);
  w.u16le(static_cast<std::uint16_t>(v.dialects.size()));
  for (const Dialect d : v.dialects) {
    w.u16le(static_cast<std::uint16_t>(d));
  }
  return w.ok() ? Result<std::size_t>(w.size()) : Error::kBufferTooSmall;
}

Result<ValidateNegotiate> parse_validate_negotiate(std::span<const std::uint8_t> message) noexcept {
  const Result<std::span<const std::uint8_t>> body = body_of(message, kResponseStructureSize);
  if (!body) {
    return body.error();
  }
  ByteReader r(*body);
  r.skip(4);
  const std::uint32_t code = r.u32le();
  r.skip(16 + 8);  // FileId, InputOffset, InputCount
  const std::uint32_t offset = r.u32le();
  const std::uint32_t count = r.u32le();
  const Result<std::span<const std::uint8_t>> out = buffer_at(message, offset, count);
  if (!r.ok() || code != kFsctlValidateNegotiateInfo || !out ||
      out->size() != kValidateResponseSize) {
    return Error::kMalformed;
  }
  ByteReader d(*out);
  ValidateNegotiate v;
  v.capabilities = d.u32le();
  d.copy_to(v.guid);
  v.security_mode = d.u16le();
  v.dialect = static_cast<Dialect>(d.u16le());
  return v;
}

}  // namespace wireseal::smb::commands
