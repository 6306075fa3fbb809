#pragma once
// read_rtp_header: parse_rtp_header (wireseal/srtp/rtp_header.h) into the caller's RtpHeader,
// for the packet paths. Returning a 48-byte Result<RtpHeader> and copying the header out of it
// reloads fields the parser stored one by one with 16-byte loads, a store-forwarding stall per
// packet (measured on SRTP's protect batch); writing in place avoids the copy. Inline, as every
// packet runs it.
#include <cstdint>
#include <span>

#include "common/bytes.h"
#include "wireseal/result.h"
#include "wireseal/srtp/rtp_header.h"

namespace wireseal::srtp::detail {

// read_rtp_header fills `header` from the start of `packet`, with parse_rtp_header's checks;
// on failure `header` holds nothing meaningful.
inline Status read_rtp_header(std::span<const std::uint8_t> packet, RtpHeader& h) noexcept {
  if (packet.size() < kRtpFixedHeaderSize) {
    return Error::kMalformed;
  }
  const std::uint8_t* p = packet.data();
  if ((p[0] >> 6) != 2) {
    return Error::kMalformed;
  }
  h = RtpHeader{};
  h.padding = (p[0] & 0x20) != 0;
  h.has_extension = (p[0] & 0x10) != 0;
  h.csrc_count = static_cast<std::uint8_t>(p[0] & 0x0f);
  h.marker = (p[1] & 0x80) != 0;
  h.payload_type = static_cast<std::uint8_t>(p[1] & 0x7f);
  h.sequence = load_be16(p + 2);
  h.timestamp = load_be32(p + 4);
  h.ssrc = load_be32(p + 8);
  std::size_t size = kRtpFixedHeaderSize + 4 * std::size_t{h.csrc_count};
  if (h.has_extension) {
    if (packet.size() < size + kRtpExtensionPreambleSize) {
      return Error::kMalformed;
    }
    h.extension_offset = size;
    h.extension_profile = load_be16(p + size);
    h.extension_body_size = 4 * std::size_t{load_be16(p + size + 2)};
    size += kRtpExtensionPreambleSize + h.extension_body_size;
  }
  if (packet.size() < size) {
    return Error::kMalformed;
  }
  h.size = size;
  return {};
}

}  // namespace wireseal::srtp::detail
