// SRTP protect and unprotect (RFC 3711 §3.3, §4; RFC 7714 §8; RFC 6904; RFC 9335).
#include <algorithm>
#include <cstring>

#include "common/bytes.h"
#include "common/ct.h"
#include "header_extension.h"
#include "keystream.h"
#include "rtp_header_read.h"
#include "rtp_plan.h"
#include "session_state.h"
#include "wireseal/srtp/packet_index.h"

namespace wireseal::srtp::detail {
namespace {

using wireseal::detail::secure_wipe;
using wireseal::detail::tag_matches;

// WipeUnlessKept zeroes bytes[0, len) when it goes out of scope, if armed and not kept.
class WipeUnlessKept {
 public:
  WipeUnlessKept(std::uint8_t* bytes, std::size_t len, bool armed) noexcept
      : bytes_(bytes), len_(len), armed_(armed) {}
  ~WipeUnlessKept() {
    if (armed_) {
      secure_wipe(bytes_, len_);
    }
  }
  WipeUnlessKept(const WipeUnlessKept&) = delete;
  WipeUnlessKept& operator=(const WipeUnlessKept&) = delete;
  void keep() noexcept { armed_ = false; }

 private:
  std::uint8_t* bytes_;
  std::size_t len_;
  bool armed_;
};

// rtp_auth_tag computes the RFC 3711 §4.2 tag: HMAC-SHA1(k_a, authenticated portion || ROC),
// truncated to out.size(). A one-job batch: with SHA-NI it runs wireseal's own SHA-1 kernel
// from the precomputed chaining values, without copying a hash context per packet.
Status rtp_auth_tag(const crypto::Hmac& hmac, std::span<const std::uint8_t> authenticated,
                    std::uint32_t roc, std::span<std::uint8_t> out) noexcept {
  std::uint8_t roc_be[4];
  store_be32(roc_be, roc);
  crypto::HmacJob job{{authenticated, roc_be, {}}, out, {}};
  hmac.compute_batch({&job, 1});
  return job.status;
}

}  // namespace

Result<std::uint64_t> estimate_rtp_index(StreamTable& table, StreamState* st,
                                         const StreamState& cfg, std::uint16_t seq) noexcept {
  if (st == nullptr || !st->rtp_started) {
    return packet_index(cfg.initial_roc, seq);
  }
  const std::optional<std::uint64_t> index = estimate_packet_index(st->rtp_highest, seq);
  if (!index) {
    return roc_of(st->rtp_highest) == UINT32_MAX ? Error::kSequenceExhausted : Error::kReplay;
  }
  if (const ReplayWindow window = table.rtp_window(*st); !window.is_fresh(*index)) {
    return window.refusal(*index);
  }
  return *index;
}

Result<SentIndex> SessionState::take_rtp_index(StreamState* st, std::uint32_t ssrc,
                                               std::uint16_t seq) noexcept {
  // `state` is the stream's, or for a new SSRC the state it would start with. That one is
  // built only when needed: a StreamState is large, and building it on every packet cost a
  // tenth of a short packet's bookkeeping.
  auto take = [&](const StreamState& state) -> Result<SentIndex> {
    Result<std::uint64_t> index = estimate_rtp_index(streams, st, state, seq);
    if (!index) {
      return index.error() == Error::kReplay && st != nullptr ? take_resend_index(*st, seq)
                                                              : index.error();
    }
    if (*index < state.rtp_send_floor) {
      return Error::kReplay;  // at or below what this SSRC protected before set_roc / removal
    }
    KeyMaterial& km = keys[state.key_index];
    if (km.srtp_protected >= srtp_key_limit) {
      return Error::kKeyLimit;
    }
    if (st == nullptr && (st = create_stream(ssrc)) == nullptr) {
      return Error::kTableFull;
    }
    ++km.srtp_protected;
    streams.rtp_window(*st).mark(*index);
    st->sent.rtp_next = std::max(st->sent.rtp_next, *index + 1);
    if (st->allow_resend && st->resend_ring == kNoResendRing) {
      st->resend_ring = streams.resends().acquire();  // none free: this stream cannot resend
    }
    return SentIndex{st, *index};
  };
  if (st != nullptr) {
    return take(*st);
  }
  const StreamState first = streams.first_state(ssrc, defaults);
  return take(first);
}

Result<SentIndex> SessionState::take_resend_index(StreamState& st, std::uint16_t seq) noexcept {
  if (st.resend_ring == kNoResendRing) {
    return Error::kReplay;
  }
  const std::optional<std::uint64_t> index = estimate_packet_index(st.rtp_highest, seq);
  if (!index || *index < st.rtp_send_floor ||
      streams.resends().entry(st.resend_ring, *index).index_plus1 != *index + 1) {
    return Error::kReplay;
  }
  return SentIndex{&st, *index, true};
}

Status SessionState::settle_resend(const SentIndex& taken,
                                   const std::uint8_t* fingerprint) noexcept {
  ResendRings::Entry& e = streams.resends().entry(taken.stream->resend_ring, taken.index);
  if (!taken.resend) {
    e.index_plus1 = taken.index + 1;
    std::memcpy(e.fingerprint.data(), fingerprint, e.fingerprint.size());
    return {};
  }
  if (tag_matches(e.fingerprint, {fingerprint, e.fingerprint.size()})) {
    return {};  // byte for byte the packet sent before under this index
  }
  return Error::kReplay;  // another packet under a used keystream: the caller wipes it
}

// protect_rtp:
//
//   in:   | RTP header (12 + 4*CC [+ 4 + ext]) | payload |
//   out:  | RTP header                          | E(payload) | [MKI] | auth tag (10 | 4) |  HMAC
//         | RTP header (AAD)                    | E(payload) | GCM tag (16) | [MKI]     |  AEAD
//
// RFC 6904: selected extension element data XORed with the header keystream before the
// tag is computed. RFC 9335 cryptex: CSRCs and extension body join the encrypted portion,
// the profile becomes 0xC0DE/0xC2DE and a CSRC-only packet gains an empty extension.
// The stream's index (ROC || SEQ) must be new to it: a reused index would reuse keystream.
Result<std::size_t> SessionState::protect_rtp(const std::uint8_t* in, std::size_t len,
                                              std::uint8_t* out, std::size_t out_cap) noexcept {
  RtpPlan plan;
  if (const Status s = plan_protect_rtp(in, len, out_cap, plan); !s) {
    return s.error();
  }
  RtpHeader& h = plan.header;  // cryptex growth rewrites it below
  StreamState* st = plan.stream;
  const StreamState& cfg = *plan.config;
  const ProfileInfo& p = *profile;
  KeyMaterial& km = *plan.key;
  const bool cryptex = plan.cryptex;
  const std::uint16_t cryptex_ext_profile = plan.cryptex_profile;
  const bool rfc6904 = plan.rfc6904;
  const std::size_t grow = plan.growth;
  const std::size_t plain_len = plan.plain_len;
  const std::size_t total = plan.total;
  Result<SentIndex> taken = take_rtp_index(st, h.ssrc, h.sequence);
  if (!taken) {
    return taken.error();
  }
  const std::uint64_t index = taken->index;
  const std::uint32_t roc = roc_of(index);
  // A resend works under a used keystream: unless it ends matching the first protection,
  // whatever it wrote (a failure half-way included) is zeroed before protect returns.
  WipeUnlessKept resend_guard(out, total, taken->resend);

  // Header into `out`; a CSRC-only cryptex packet gets an empty extension (RFC 9335 §5.1).
  const std::size_t payload_len = len - h.size;
  const std::uint8_t* payload_in = in + h.size;
  if (out != in) {
    std::memcpy(out, in, h.size);
  }
  if (grow != 0) {
    if (out == in) {
      std::memmove(out + h.size + grow, in + h.size, payload_len);
      payload_in = out + h.size + grow;
    }
    out[0] = static_cast<std::uint8_t>(out[0] | 0x10);
    store_be16(out + h.size, kCryptexOneByteProfile);
    store_be16(out + h.size + 2, 0);
    h.has_extension = true;
    h.extension_offset = h.size;
    h.extension_body_size = 0;
    h.size += grow;
  } else if (cryptex) {
    store_be16(out + h.extension_offset, cryptex_ext_profile);
  }
  if (cryptex) {
    h.extension_profile = cryptex_ext_profile;
  }
  std::uint8_t* payload_out = out + h.size;
  const std::span<std::uint8_t> packet(out, plain_len);
  std::uint8_t* tail = out + plain_len;

  if (rfc6904) {
    const Iv16 hiv = cm_iv(salt14(km.header_salt), h.ssrc, index);
    if (Status s = apply_rfc6904(*km.header_ctr, hiv, cfg, packet, h); !s) {
      return s.error();
    }
  }
  switch (p.cipher) {
    case CipherKind::kAesCm: {
      const Iv16 iv = cm_iv(salt14(km.rtp.salt), h.ssrc, index);
      std::size_t ks_offset = 0;
      if (cryptex) {
        Result<std::size_t> r = cryptex_xor_header(*km.rtp.ctr, iv, packet, h);
        if (!r) {
          return r.error();
        }
        ks_offset = *r;
      }
      if (Status s = ctr_xor(*km.rtp.ctr, iv, ks_offset, {payload_in, payload_len},
                             {payload_out, payload_len});
          !s) {
        return s.error();
      }
      break;
    }
    case CipherKind::kNull:
      if (payload_out != payload_in) {
        std::memcpy(payload_out, payload_in, payload_len);
      }
      break;
    case CipherKind::kAesGcm: {
      const Iv12 iv = gcm_rtp_iv(salt12(km.rtp.salt), h.ssrc, roc, h.sequence);
      Status s;
      if (cryptex) {
        // AAD = fixed header || extension preamble; CSRCs || body || payload encrypted as one.
        if (payload_out != payload_in) {
          std::memcpy(payload_out, payload_in, payload_len);
        }
        cryptex_gather(out, h);
        constexpr std::size_t kAad = kRtpFixedHeaderSize + kRtpExtensionPreambleSize;
        s = km.rtp.aead->seal(iv, {out, kAad}, {out + kAad, plain_len - kAad},
                              {out + kAad, plain_len - kAad}, {tail, p.rtp_tag_len});
        cryptex_scatter(out, h);
      } else {
        s = km.rtp.aead->seal(iv, {out, h.size}, {payload_in, payload_len},
                              {payload_out, payload_len}, {tail, p.rtp_tag_len});
      }
      if (!s) {
        return s.error();
      }
      std::memcpy(tail + p.rtp_tag_len, km.mki.data(), mki_len);  // RFC 7714 §8: MKI last
      break;
    }
  }
  // A stream with a resend ring fingerprints what it sends: the GCM tag, or the untruncated
  // HMAC (a 4-byte tag is too short to tell two packets apart).
  const bool fingerprinted = taken->stream->resend_ring != kNoResendRing;
  std::uint8_t hmac_full[kHmacSha1Size];
  const std::uint8_t* fingerprint = tail;
  if (p.cipher != CipherKind::kAesGcm) {
    std::memcpy(tail, km.mki.data(), mki_len);  // RFC 3711 §3.1: MKI, then the tag
    const std::span<std::uint8_t> tag_out = fingerprinted
                                                ? std::span<std::uint8_t>(hmac_full)
                                                : std::span(tail + mki_len, p.rtp_tag_len);
    if (Status s = rtp_auth_tag(*km.rtp.hmac, packet, roc, tag_out); !s) {
      return s.error();
    }
    if (fingerprinted) {
      std::memcpy(tail + mki_len, hmac_full, p.rtp_tag_len);
      fingerprint = hmac_full;
    }
  }
  if (fingerprinted) {
    if (Status s = settle_resend(*taken, fingerprint); !s) {
      return s.error();
    }
  }
  resend_guard.keep();
  return total;
}

// unprotect_rtp:
//
//   in:   | RTP header | E(payload) | [MKI] | auth tag |      HMAC: check tag, then decrypt
//         | RTP header | E(payload) | GCM tag | [MKI]  |      AEAD: open (AAD = header)
//   out:  | RTP header | payload |
//
// Order (RFC 3711 §3.3): MKI -> key, SSRC -> stream, index estimate, replay check, then
// authentication, and only after it: decryption, header decryption, window and ROC update.
Result<std::size_t> SessionState::unprotect_rtp(const std::uint8_t* in, std::size_t len,
                                                std::uint8_t* out, std::size_t out_cap) noexcept {
  RtpHeader h;
  if (const Status s = read_rtp_header({in, len}, h); !s) {
    return count_drop(s.error());
  }
  const ProfileInfo& p = *profile;
  const bool aead = p.cipher == CipherKind::kAesGcm;
  if (len < h.size + p.rtp_tag_len + mki_len) {
    return count_drop(Error::kMalformed);
  }
  const std::size_t plain_len = len - p.rtp_tag_len - mki_len;
  if (exceeds_keystream(p, plain_len - kRtpFixedHeaderSize)) {
    return count_drop(Error::kMalformed);  // no sender can have protected it
  }
  if (out_cap < plain_len) {
    return count_drop(Error::kBufferTooSmall);
  }
  const std::uint8_t* mki = in + plain_len + (aead ? p.rtp_tag_len : 0);
  const std::uint8_t* tag = in + plain_len + (aead ? 0 : mki_len);
  KeyMaterial* kmp = key_for_mki(mki);
  if (kmp == nullptr) {
    return count_drop(Error::kAuthFailed);
  }
  KeyMaterial& km = *kmp;
  StreamState* st = streams.find(h.ssrc);
  if (st == nullptr && (!auto_create || streams.full())) {
    return count_drop(auto_create ? Error::kTableFull : Error::kWrongContext);
  }
  const StreamState& cfg = st != nullptr ? *st : defaults;
  const bool cryptex = cfg.cryptex && p.cipher != CipherKind::kNull && h.has_extension &&
                       cryptex_form(h.extension_profile) != ExtensionForm::kOther;
  const bool rfc6904 = !cryptex && cfg.encrypt_extensions && h.has_extension && km.header_ctr;
  if (rfc6904 && !rfc6904_well_formed({in, len}, h)) {
    return count_drop(Error::kMalformed);
  }
  Result<std::uint64_t> index = estimate_rtp_index(streams, st, cfg, h.sequence);
  if (!index) {
    return count_drop(index.error());
  }
  const std::uint32_t roc = roc_of(*index);
  const std::size_t payload_len = plain_len - h.size;
  const std::span<std::uint8_t> packet(out, plain_len);

  switch (p.cipher) {
    case CipherKind::kAesCm:
    case CipherKind::kNull: {
      std::uint8_t expected[kHmacSha1Size];
      const std::span<std::uint8_t> want(expected, p.rtp_tag_len);
      if (!rtp_auth_tag(*km.rtp.hmac, {in, plain_len}, roc, want) ||
          !tag_matches(want, {tag, p.rtp_tag_len})) {
        return count_drop(Error::kAuthFailed);
      }
      if (out != in) {
        std::memcpy(out, in, h.size);
      }
      if (p.cipher == CipherKind::kNull) {
        if (out != in) {
          std::memcpy(out + h.size, in + h.size, payload_len);
        }
        break;
      }
      const Iv16 iv = cm_iv(salt14(km.rtp.salt), h.ssrc, *index);
      std::size_t ks_offset = 0;
      if (cryptex) {
        Result<std::size_t> r = cryptex_xor_header(*km.rtp.ctr, iv, packet, h);
        if (!r) {
          return count_drop(r.error());
        }
        ks_offset = *r;
      }
      if (Status s = ctr_xor(*km.rtp.ctr, iv, ks_offset, {in + h.size, payload_len},
                             {out + h.size, payload_len});
          !s) {
        return count_drop(s.error());
      }
      break;
    }
    case CipherKind::kAesGcm: {
      const Iv12 iv = gcm_rtp_iv(salt12(km.rtp.salt), h.ssrc, roc, h.sequence);
      const std::span<const std::uint8_t> tag_span(tag, p.rtp_tag_len);
      if (cryptex) {
        if (out != in) {
          std::memcpy(out, in, plain_len);
        }
        cryptex_gather(out, h);
        constexpr std::size_t kAad = kRtpFixedHeaderSize + kRtpExtensionPreambleSize;
        const Status s = km.rtp.aead->open(iv, {out, kAad}, {out + kAad, plain_len - kAad},
                                           {out + kAad, plain_len - kAad}, tag_span);
        cryptex_scatter(out, h);
        if (!s) {
          return count_drop(s.error());
        }
      } else {
        if (Status s = km.rtp.aead->open(iv, {in, h.size}, {in + h.size, payload_len},
                                         {out + h.size, payload_len}, tag_span);
            !s) {
          return count_drop(s.error());
        }
        if (out != in) {
          std::memcpy(out, in, h.size);
        }
      }
      break;
    }
  }
  if (cryptex) {
    // RFC 9335 §5.3: the receiver restores the original extension profile.
    store_be16(out + h.extension_offset, plain_profile(h.extension_profile));
  } else if (rfc6904) {
    const Iv16 hiv = cm_iv(salt14(km.header_salt), h.ssrc, *index);
    if (Status s = apply_rfc6904(*km.header_ctr, hiv, cfg, packet, h); !s) {
      secure_wipe(out, plain_len);
      return count_drop(s.error());
    }
  }
  if (st == nullptr) {
    st = create_stream(h.ssrc);
  }
  streams.rtp_window(*st).mark(*index);
  WS_CT_DECLASSIFY(out, plain_len);  // authenticated: the caller's plaintext, no secret
  return plain_len;
}

}  // namespace wireseal::srtp::detail
