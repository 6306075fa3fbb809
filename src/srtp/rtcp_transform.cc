// SRTCP protect and unprotect (RFC 3711 §3.4, RFC 7714 §9).
#include <cstring>

#include "common/bytes.h"
#include "common/ct.h"
#include "keystream.h"
#include "session_state.h"

namespace wireseal::srtp::detail {
namespace {

using wireseal::detail::tag_matches;

constexpr std::uint32_t kMaxSrtcpIndex = 0x7fffffffu;

bool rtcp_version_ok(const std::uint8_t* p) noexcept { return (p[0] >> 6) == 2; }

}  // namespace

Result<SentIndex> SessionState::take_rtcp_index(StreamState* st, std::uint32_t ssrc) noexcept {
  const std::uint32_t index =
      st != nullptr ? st->sent.rtcp_next : streams.first_state(ssrc, defaults).sent.rtcp_next;
  if (index > kMaxSrtcpIndex) {
    return Error::kSequenceExhausted;  // RFC 3711 §9.2: re-key before 2^31 SRTCP packets
  }
  KeyMaterial& km = keys[st != nullptr ? st->key_index : defaults.key_index];
  if (km.srtcp_protected >= srtcp_key_limit) {
    return Error::kKeyLimit;  // the same limit over all the key's streams
  }
  if (st == nullptr && (st = create_stream(ssrc)) == nullptr) {
    return Error::kTableFull;
  }
  ++km.srtcp_protected;
  st->sent.rtcp_next = index + 1;
  return SentIndex{st, index};
}

// protect_rtcp:
//
//   in:   | header + SSRC (8) | rest of the compound packet |
//   out:  | header + SSRC (8) | E(rest) | E|index (4) | [MKI] | auth tag (10) |      HMAC
//         | header + SSRC (8) | E(rest) | GCM tag (16) | E|index (4) | [MKI] |       AEAD
//
// HMAC covers header || E(rest) || E|index (RFC 3711 §3.4); the AEAD's AAD is header ||
// E|index (RFC 7714 §9.3 for E = 1). NULL profiles send E = 0 (nothing encrypted).
Status SessionState::plan_protect_rtcp(const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                                       std::size_t out_cap, RtcpSendPlan& plan) noexcept {
  if (len < kRtcpHeaderSize || !rtcp_version_ok(in)) {
    return Error::kMalformed;
  }
  const std::uint32_t ssrc = load_be32(in + 4);
  StreamState* st = streams.find(ssrc);
  if (st == nullptr && (!auto_create || streams.full())) {
    return auto_create ? Error::kTableFull : Error::kWrongContext;
  }
  const ProfileInfo& p = *profile;
  const std::size_t total = len + kRtcpIndexWordSize + mki_len + p.rtcp_tag_len;
  if (out_cap < total || total < len) {
    return Error::kBufferTooSmall;
  }
  if (exceeds_keystream(p, len - kRtcpHeaderSize)) {
    return Error::kInvalidArgument;
  }
  Result<SentIndex> taken = take_rtcp_index(st, ssrc);
  if (!taken) {
    return taken.error();
  }
  const auto index = static_cast<std::uint32_t>(taken->index);
  plan.key = &keys[taken->stream->key_index];
  plan.ssrc = ssrc;
  plan.index = index;
  plan.word = (p.cipher != CipherKind::kNull ? kRtcpEFlag : 0) | index;
  plan.total = total;
  if (out != in) {
    std::memcpy(out, in, kRtcpHeaderSize);
  }
  return {};
}

Result<std::size_t> SessionState::protect_rtcp(const std::uint8_t* in, std::size_t len,
                                               std::uint8_t* out, std::size_t out_cap) noexcept {
  RtcpSendPlan plan;
  if (const Status s = plan_protect_rtcp(in, len, out, out_cap, plan); !s) {
    return s.error();
  }
  const ProfileInfo& p = *profile;
  KeyMaterial& km = *plan.key;
  const std::uint32_t ssrc = plan.ssrc;
  const std::uint32_t index = plan.index;
  const std::uint32_t word = plan.word;
  const bool encrypt = p.cipher != CipherKind::kNull;
  const std::size_t body_len = len - kRtcpHeaderSize;
  switch (p.cipher) {
    case CipherKind::kAesCm:
    case CipherKind::kNull: {
      if (encrypt) {
        const Iv16 iv = cm_iv(salt14(km.rtcp.salt), ssrc, index);
        if (Status s = ctr_xor(*km.rtcp.ctr, iv, 0, {in + kRtcpHeaderSize, body_len},
                               {out + kRtcpHeaderSize, body_len});
            !s) {
          return s.error();
        }
      } else if (out != in) {
        std::memcpy(out + kRtcpHeaderSize, in + kRtcpHeaderSize, body_len);
      }
      store_be32(out + len, word);
      std::memcpy(out + len + kRtcpIndexWordSize, km.mki.data(), mki_len);
      if (Status s =
              km.rtcp.hmac->compute({out, len + kRtcpIndexWordSize},
                                    {out + len + kRtcpIndexWordSize + mki_len, p.rtcp_tag_len});
          !s) {
        return s.error();
      }
      break;
    }
    case CipherKind::kAesGcm: {
      const Iv12 iv = gcm_rtcp_iv(salt12(km.rtcp.salt), ssrc, index);
      std::uint8_t aad[kRtcpHeaderSize + kRtcpIndexWordSize];
      std::memcpy(aad, in, kRtcpHeaderSize);
      store_be32(aad + kRtcpHeaderSize, word);
      if (Status s =
              km.rtcp.aead->seal(iv, aad, {in + kRtcpHeaderSize, body_len},
                                 {out + kRtcpHeaderSize, body_len}, {out + len, p.rtcp_tag_len});
          !s) {
        return s.error();
      }
      store_be32(out + len + p.rtcp_tag_len, word);
      std::memcpy(out + len + p.rtcp_tag_len + kRtcpIndexWordSize, km.mki.data(), mki_len);
      break;
    }
  }
  return plan.total;
}

// unprotect_rtcp:
//
//   in:   | header + SSRC | E(rest) | E|index | [MKI] | auth tag |       HMAC
//         | header + SSRC | E(rest) | GCM tag | E|index | [MKI]  |       AEAD
//   out:  | header + SSRC | rest |
//
// The index is explicit (no estimate); replay check before authentication, window update
// after. With E = 0 the rest is only authenticated: for AEAD the AAD is then the whole RTCP
// packet || E|index (RFC 7714 §9.3), which is assembled in `out` (it needs 4 spare bytes).
Status SessionState::judge_rtcp_stream(std::uint32_t ssrc, std::uint32_t index,
                                       StreamState*& st) noexcept {
  st = streams.find(ssrc);
  if (st == nullptr && (!auto_create || streams.full())) {
    return auto_create ? Error::kTableFull : Error::kWrongContext;
  }
  if (st != nullptr && !streams.rtcp_window(*st).is_fresh(index)) {
    return streams.rtcp_window(*st).refusal(index);
  }
  return {};
}

Status SessionState::plan_unprotect_rtcp(const std::uint8_t* in, std::size_t len,
                                         std::size_t out_cap, RtcpOpenPlan& plan) noexcept {
  const ProfileInfo& p = *profile;
  const bool aead = p.cipher == CipherKind::kAesGcm;
  const std::size_t trailer = kRtcpIndexWordSize + mki_len + p.rtcp_tag_len;
  if (len < kRtcpHeaderSize + trailer || !rtcp_version_ok(in)) {
    return Error::kMalformed;
  }
  const std::size_t plain_len = len - trailer;
  if (exceeds_keystream(p, plain_len - kRtcpHeaderSize)) {
    return Error::kMalformed;  // no sender can have protected it
  }
  if (out_cap < plain_len) {
    return Error::kBufferTooSmall;
  }
  const std::uint8_t* word_at = in + plain_len + (aead ? p.rtcp_tag_len : 0);
  KeyMaterial* km = key_for_mki(word_at + kRtcpIndexWordSize);
  if (km == nullptr) {
    return Error::kAuthFailed;
  }
  const std::uint32_t word = load_be32(word_at);
  const std::uint32_t index = word & kMaxSrtcpIndex;
  const std::uint32_t ssrc = load_be32(in + 4);
  StreamState* st = nullptr;
  if (const Status verdict = judge_rtcp_stream(ssrc, index, st); !verdict) {
    return verdict;
  }
  plan.key = km;
  plan.stream = st;
  plan.ssrc = ssrc;
  plan.index = index;
  plan.word = word;
  plan.encrypted = (word & kRtcpEFlag) != 0;
  plan.plain_len = plain_len;
  plan.tag = in + plain_len + (aead ? 0 : kRtcpIndexWordSize + mki_len);
  return {};
}

Result<std::size_t> SessionState::unprotect_rtcp(const std::uint8_t* in, std::size_t len,
                                                 std::uint8_t* out, std::size_t out_cap) noexcept {
  RtcpOpenPlan plan;
  if (const Status s = plan_unprotect_rtcp(in, len, out_cap, plan); !s) {
    return count_drop(s.error());
  }
  const ProfileInfo& p = *profile;
  const bool aead = p.cipher == CipherKind::kAesGcm;
  KeyMaterial& km = *plan.key;
  StreamState* st = plan.stream;
  const std::uint32_t ssrc = plan.ssrc;
  const std::uint32_t index = plan.index;
  const std::uint32_t word = plan.word;
  const bool encrypted = plan.encrypted;
  const std::size_t plain_len = plan.plain_len;
  const std::uint8_t* tag = plan.tag;
  const std::size_t body_len = plain_len - kRtcpHeaderSize;

  if (!aead) {
    std::uint8_t expected[kHmacSha1Size];
    const std::span<std::uint8_t> want(expected, p.rtcp_tag_len);
    if (!km.rtcp.hmac->compute({in, plain_len + kRtcpIndexWordSize}, want) ||
        !tag_matches(want, {tag, p.rtcp_tag_len})) {
      return count_drop(Error::kAuthFailed);
    }
    if (out != in) {
      std::memcpy(out, in, kRtcpHeaderSize);
    }
    if (encrypted && p.cipher == CipherKind::kAesCm) {
      const Iv16 iv = cm_iv(salt14(km.rtcp.salt), ssrc, index);
      if (Status s = ctr_xor(*km.rtcp.ctr, iv, 0, {in + kRtcpHeaderSize, body_len},
                             {out + kRtcpHeaderSize, body_len});
          !s) {
        return count_drop(s.error());
      }
    } else if (out != in) {
      std::memcpy(out + kRtcpHeaderSize, in + kRtcpHeaderSize, body_len);
    }
  } else {
    const Iv12 iv = gcm_rtcp_iv(salt12(km.rtcp.salt), ssrc, index);
    const std::span<const std::uint8_t> tag_span(tag, p.rtcp_tag_len);
    if (encrypted) {
      std::uint8_t aad[kRtcpHeaderSize + kRtcpIndexWordSize];
      std::memcpy(aad, in, kRtcpHeaderSize);
      store_be32(aad + kRtcpHeaderSize, word);
      if (Status s = km.rtcp.aead->open(iv, aad, {in + kRtcpHeaderSize, body_len},
                                        {out + kRtcpHeaderSize, body_len}, tag_span);
          !s) {
        return count_drop(s.error());
      }
      if (out != in) {
        std::memcpy(out, in, kRtcpHeaderSize);
      }
    } else {
      // Authentication only: AAD = RTCP packet || E|index, contiguous in `out`.
      if (out_cap < plain_len + kRtcpIndexWordSize) {
        return count_drop(Error::kBufferTooSmall);
      }
      std::uint8_t saved_tag[16];
      std::memcpy(saved_tag, tag, p.rtcp_tag_len);
      if (out != in) {
        std::memcpy(out, in, plain_len);
      }
      store_be32(out + plain_len, word);
      if (Status s = km.rtcp.aead->open(iv, {out, plain_len + kRtcpIndexWordSize}, {}, {},
                                        {saved_tag, p.rtcp_tag_len});
          !s) {
        std::memset(out, 0, plain_len + kRtcpIndexWordSize);
        return count_drop(s.error());
      }
    }
  }
  if (st == nullptr) {
    st = create_stream(ssrc);
  }
  streams.rtcp_window(*st).mark(index);
  WS_CT_DECLASSIFY(out, plain_len);  // authenticated: the caller's plaintext, no secret
  return plain_len;
}

}  // namespace wireseal::srtp::detail
