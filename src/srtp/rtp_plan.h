#pragma once
// plan_protect_rtp, the step protect_rtp and the protect batch share. Inline, in both of their
// translation units: it runs once per packet, and as an out-of-line call returning its plan
// through memory it cost the single path about 50 instructions a packet.
#include <cstddef>
#include <cstdint>

#include "header_extension.h"
#include "rtp_header_read.h"
#include "session_state.h"
#include "wireseal/srtp/rtp_header.h"

namespace wireseal::srtp::detail {

inline Status SessionState::plan_protect_rtp(const std::uint8_t* in, std::size_t len,
                                             std::size_t out_cap, RtpPlan& plan) noexcept {
  if (const Status s = read_rtp_header({in, len}, plan.header); !s) {
    return s;
  }
  const RtpHeader& h = plan.header;
  plan.stream = streams.find(h.ssrc);
  if (plan.stream == nullptr && (!auto_create || streams.full())) {
    return auto_create ? Error::kTableFull : Error::kWrongContext;
  }
  const StreamState& cfg = plan.stream != nullptr ? *plan.stream : defaults;
  plan.config = &cfg;
  const ProfileInfo& p = *profile;
  plan.key = &keys[cfg.key_index];
  plan.cryptex =
      cfg.cryptex && p.cipher != CipherKind::kNull && (h.csrc_count != 0 || h.has_extension);
  plan.cryptex_profile = kCryptexOneByteProfile;
  if (plan.cryptex && h.has_extension) {
    plan.cryptex_profile = cryptex_profile(h.extension_profile);
    if (plan.cryptex_profile == 0) {
      return Error::kInvalidArgument;
    }
  }
  plan.rfc6904 = !plan.cryptex && cfg.encrypt_extensions && h.has_extension && plan.key->header_ctr;
  if (plan.rfc6904 && !rfc6904_well_formed({in, len}, h)) {
    return Error::kMalformed;
  }
  plan.growth = cryptex_growth(h, plan.cryptex);
  plan.plain_len = len + plan.growth;
  if (exceeds_keystream(p, plan.plain_len - kRtpFixedHeaderSize)) {
    return Error::kInvalidArgument;
  }
  plan.total = plan.plain_len + p.rtp_tag_len + mki_len;
  if (out_cap < plan.total) {
    return Error::kBufferTooSmall;
  }
  return {};
}

}  // namespace wireseal::srtp::detail
