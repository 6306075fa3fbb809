#pragma once
// read_rtp_header: parse_rtp_header (wireseal/srtp/rtp_header.h) into the caller's RtpHeader,
// for the packet paths. Returning a 48-byte Result<RtpHeader> and copying the header out of it
// reloads fields the parser stored one by one with 16-byte loads, a store-forwarding stall per
// packet (measured on SRTP's protect batch); writing in place avoids the copy.
#include <cstdint>
#include <span>

#include "wireseal/result.h"
#include "wireseal/srtp/rtp_header.h"

namespace wireseal::srtp::detail {

// read_rtp_header fills `header` from the start of `packet`, with parse_rtp_header's checks;
// on failure `header` holds nothing meaningful. Defined in rtp_header.cc.
Status read_rtp_header(std::span<const std::uint8_t> packet, RtpHeader& header) noexcept;

}  // namespace wireseal::srtp::detail
