// SRTCP protect and unprotect (RFC 3711 §3.4, RFC 7714 §9).
#include <cstring>

#include "common/bytes.h"
#include "common/ct.h"
#include "keystream.h"
#include "session_state.h"

namespace wireseal::srtp::detail {
namespace {

using wireseal::detail::tag_matches;

constexpr std::size_t kRtcpHeaderSize = 8;  // V|P|RC|PT|length + sender SSRC: never encrypted
constexpr std::size_t kIndexWordSize = 4;   // E flag || 31-bit SRTCP index
constexpr std::uint32_t kEFlag = 0x80000000u;
constexpr std::uint32_t kMaxSrtcpIndex = 0x7fffffffu;
constexpr std::size_t kHmacSha1Size = 20;

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
Result<std::size_t> SessionState::protect_rtcp(const std::uint8_t* in, std::size_t len,
                                               std::uint8_t* out, std::size_t out_cap) noexcept {
  if (len < kRtcpHeaderSize || !rtcp_version_ok(in)) {
    return Error::kMalformed;
  }
  const std::uint32_t ssrc = load_be32(in + 4);
  StreamState* st = streams.find(ssrc);
  if (st == nullptr && (!auto_create || streams.full())) {
    return auto_create ? Error::kTableFull : Error::kWrongContext;
  }
  const ProfileInfo& p = *profile;
  const std::size_t total = len + kIndexWordSize + mki_len + p.rtcp_tag_len;
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
  KeyMaterial& km = keys[taken->stream->key_index];
  const auto index = static_cast<std::uint32_t>(taken->index);
  const bool encrypt = p.cipher != CipherKind::kNull;
  const std::uint32_t word = (encrypt ? kEFlag : 0) | index;
  const std::size_t body_len = len - kRtcpHeaderSize;
  if (out != in) {
    std::memcpy(out, in, kRtcpHeaderSize);
  }
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
      std::memcpy(out + len + kIndexWordSize, km.mki.data(), mki_len);
      if (Status s = km.rtcp.hmac->compute({out, len + kIndexWordSize},
                                           {out + len + kIndexWordSize + mki_len, p.rtcp_tag_len});
          !s) {
        return s.error();
      }
      break;
    }
    case CipherKind::kAesGcm: {
      const Iv12 iv = gcm_rtcp_iv(salt12(km.rtcp.salt), ssrc, index);
      std::uint8_t aad[kRtcpHeaderSize + kIndexWordSize];
      std::memcpy(aad, in, kRtcpHeaderSize);
      store_be32(aad + kRtcpHeaderSize, word);
      if (Status s =
              km.rtcp.aead->seal(iv, aad, {in + kRtcpHeaderSize, body_len},
                                 {out + kRtcpHeaderSize, body_len}, {out + len, p.rtcp_tag_len});
          !s) {
        return s.error();
      }
      store_be32(out + len + p.rtcp_tag_len, word);
      std::memcpy(out + len + p.rtcp_tag_len + kIndexWordSize, km.mki.data(), mki_len);
      break;
    }
  }
  return total;
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
Result<std::size_t> SessionState::unprotect_rtcp(const std::uint8_t* in, std::size_t len,
                                                 std::uint8_t* out, std::size_t out_cap) noexcept {
  const ProfileInfo& p = *profile;
  const bool aead = p.cipher == CipherKind::kAesGcm;
  const std::size_t trailer = kIndexWordSize + mki_len + p.rtcp_tag_len;
  if (len < kRtcpHeaderSize + trailer || !rtcp_version_ok(in)) {
    return count_drop(Error::kMalformed);
  }
  const std::size_t plain_len = len - trailer;
  if (exceeds_keystream(p, plain_len - kRtcpHeaderSize)) {
    return count_drop(Error::kMalformed);  // no sender can have protected it
  }
  if (out_cap < plain_len) {
    return count_drop(Error::kBufferTooSmall);
  }
  const std::uint8_t* tag = in + plain_len + (aead ? 0 : kIndexWordSize + mki_len);
  const std::uint8_t* word_at = in + plain_len + (aead ? p.rtcp_tag_len : 0);
  const std::uint8_t* mki = word_at + kIndexWordSize;
  const std::uint32_t word = load_be32(word_at);
  const bool encrypted = (word & kEFlag) != 0;
  const std::uint32_t index = word & kMaxSrtcpIndex;
  KeyMaterial* kmp = key_for_mki(mki);
  if (kmp == nullptr) {
    return count_drop(Error::kAuthFailed);
  }
  KeyMaterial& km = *kmp;
  const std::uint32_t ssrc = load_be32(in + 4);
  StreamState* st = streams.find(ssrc);
  if (st == nullptr && (!auto_create || streams.full())) {
    return count_drop(auto_create ? Error::kTableFull : Error::kWrongContext);
  }
  if (st != nullptr && !streams.rtcp_window(*st).is_fresh(index)) {
    return count_drop(streams.rtcp_window(*st).refusal(index));
  }
  const std::size_t body_len = plain_len - kRtcpHeaderSize;

  if (!aead) {
    std::uint8_t expected[kHmacSha1Size];
    const std::span<std::uint8_t> want(expected, p.rtcp_tag_len);
    if (!km.rtcp.hmac->compute({in, plain_len + kIndexWordSize}, want) ||
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
      std::uint8_t aad[kRtcpHeaderSize + kIndexWordSize];
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
      if (out_cap < plain_len + kIndexWordSize) {
        return count_drop(Error::kBufferTooSmall);
      }
      std::uint8_t saved_tag[16];
      std::memcpy(saved_tag, tag, p.rtcp_tag_len);
      if (out != in) {
        std::memcpy(out, in, plain_len);
      }
      store_be32(out + plain_len, word);
      if (Status s = km.rtcp.aead->open(iv, {out, plain_len + kIndexWordSize}, {}, {},
                                        {saved_tag, p.rtcp_tag_len});
          !s) {
        std::memset(out, 0, plain_len + kIndexWordSize);
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
