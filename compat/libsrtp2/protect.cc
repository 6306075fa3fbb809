// srtp_protect / srtp_unprotect and their RTCP and MKI forms: find the SSRC's stream (or the
// template that creates it), check the MKI the way libsrtp reports it, and hand the packet to
// the wireseal Session in place. Nothing here allocates.
#include <cstring>
#include <span>

#include "context.h"
#include "wireseal/srtp/profile.h"

namespace wireseal::compat {
namespace {

constexpr std::size_t kRtpHeader = 12;
constexpr std::size_t kRtcpHeader = 8;
constexpr int kMaxPacket = 1 << 20;  // far beyond any datagram: a larger length is a bug
// libsrtp warns of a key's end 2^16 packets before it (its soft limit).
constexpr std::uint64_t kSoftLimitMargin = 1 << 16;

std::uint32_t load_be32(const std::uint8_t* p) noexcept {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

enum class Kind : std::uint8_t { kRtp, kRtcp };

// Packet is one call's arguments, checked.
struct Packet {
  srtp_t ctx;
  std::uint8_t* bytes;
  int* len;
  Kind kind;
  std::uint32_t ssrc;
};

srtp_err_status_t check(srtp_t ctx, void* hdr, int* len, Kind kind, Packet& out) noexcept {
  const std::size_t header = kind == Kind::kRtp ? kRtpHeader : kRtcpHeader;
  if (ctx == nullptr || hdr == nullptr || len == nullptr || *len < static_cast<int>(header) ||
      *len > kMaxPacket) {
    return srtp_err_status_bad_param;
  }
  auto* bytes = static_cast<std::uint8_t*>(hdr);
  out = Packet{ctx, bytes, len, kind, load_be32(bytes + (kind == Kind::kRtp ? 8 : 4))};
  return srtp_err_status_ok;
}

Keying& keying_of(const Policy& p, Kind kind) noexcept {
  return kind == Kind::kRtp ? *p.rtp : *p.rtcp;
}

// An MKI policy always puts the MKI on the wire: libsrtp's "use_mki = 0" with several keys
// would send key 0 without it, which this library refuses rather than guess.
srtp_err_status_t check_mki_use(const Policy& p, unsigned use_mki, unsigned mki_index) noexcept {
  if ((p.mki_len != 0 && use_mki == 0) || (use_mki != 0 && mki_index >= p.key_count)) {
    return srtp_err_status_bad_mki;
  }
  return srtp_err_status_ok;
}

// apply_pending_roc: a ROC set by srtp_set_stream_roc takes effect with this packet; a sender
// cannot go back under what it protected (libsrtp: replay_old).
srtp_err_status_t apply_pending_roc(Stream& s) noexcept {
  if (s.pending_roc == 0) {
    return srtp_err_status_ok;
  }
  const std::uint32_t roc = s.pending_roc;
  s.pending_roc = 0;
  srtp::Session& rtp = s.policy->rtp->session;
  const Result<std::uint32_t> now = rtp.roc(s.ssrc);
  if (now && roc < *now) {
    return srtp_err_status_replay_old;
  }
  const Status set = rtp.set_roc(s.ssrc, roc);
  if (set) {
    return srtp_err_status_ok;
  }
  return set.error() == Error::kBadState ? srtp_err_status_replay_old : status_of(set.error());
}

void note_direction(const Packet& pkt, Stream& s, Direction d) noexcept {
  if (s.direction == Direction::kUnknown) {
    s.direction = d;
  } else if (s.direction != d) {
    report_event(pkt.ctx, pkt.ssrc, event_ssrc_collision);
  }
}

void report_limit(const Packet& pkt, Error e) noexcept {
  if (e == Error::kKeyLimit) {
    report_event(pkt.ctx, pkt.ssrc, event_key_hard_limit);
  } else if (e == Error::kSequenceExhausted) {
    report_event(pkt.ctx, pkt.ssrc, event_packet_index_limit);
  }
}

void report_soft_limit(const Packet& pkt, const srtp::Session& session, std::size_t key) noexcept {
  const Result<srtp::KeyUsage> used = session.key_usage(key);
  const srtp::ProfileInfo& info = session.profile();
  if (used && (used->srtp_packets + kSoftLimitMargin == info.max_srtp_packets_per_key ||
               used->srtcp_packets + kSoftLimitMargin == info.max_srtcp_packets_per_key)) {
    report_event(pkt.ctx, pkt.ssrc, event_key_soft_limit);
  }
}

srtp_err_status_t protect(Packet pkt, unsigned use_mki, unsigned mki_index) noexcept {
  Stream* s = pkt.ctx->streams.find(pkt.ssrc);
  Policy* policy = s != nullptr ? s->policy : pkt.ctx->outbound;
  if (policy == nullptr) {
    return srtp_err_status_no_ctx;
  }
  if (const srtp_err_status_t m = check_mki_use(*policy, use_mki, mki_index);
      m != srtp_err_status_ok) {
    return m;
  }
  srtp::Session& session = keying_of(*policy, pkt.kind).session;
  const auto key = static_cast<std::uint8_t>(use_mki != 0 ? mki_index : 0);
  if (s == nullptr) {
    // First packet of an SSRC the outbound template covers: its stream starts here.
    s = pkt.ctx->streams.insert(pkt.ssrc, policy);
    if (s == nullptr) {
      return srtp_err_status_alloc_fail;
    }
  }
  if (!session.has_stream(pkt.ssrc)) {
    if (const Status added =
            add_stream_to(keying_of(*policy, pkt.kind), pkt.ssrc, policy->options(key));
        !added) {
      return status_of(added.error());
    }
  } else if (policy->key_count > 1) {
    static_cast<void>(session.set_active_key(pkt.ssrc, key));
  }
  s->key_index = key;
  if (pkt.kind == Kind::kRtp) {
    if (const srtp_err_status_t r = apply_pending_roc(*s); r != srtp_err_status_ok) {
      return r;
    }
  }
  note_direction(pkt, *s, Direction::kSender);
  const auto len = static_cast<std::size_t>(*pkt.len);
  std::size_t room = 0;
  if (pkt.kind == Kind::kRtp) {
    room = session.protected_rtp_size({pkt.bytes, len});
    if (room == 0) {
      return srtp_err_status_bad_param;
    }
  } else {
    room = session.protected_rtcp_size(len);
  }
  // The caller leaves room for the trailer behind the packet, as libsrtp requires.
  const std::span<std::uint8_t> buffer(pkt.bytes, room);
  const Result<std::size_t> out =
      pkt.kind == Kind::kRtp ? session.protect_rtp(buffer, len) : session.protect_rtcp(buffer, len);
  if (!out) {
    report_limit(pkt, out.error());
    return status_of(out.error());
  }
  report_soft_limit(pkt, session, key);
  *pkt.len = static_cast<int>(*out);
  return srtp_err_status_ok;
}

// known_mki: the packet's MKI is one of the policy's (libsrtp says bad_mki, not auth_fail).
bool known_mki(const Policy& p, const srtp::Session& session, const Packet& pkt) noexcept {
  const srtp::ProfileInfo& info = session.profile();
  const bool aead = info.cipher == srtp::CipherKind::kAesGcm;
  const std::size_t tag = pkt.kind == Kind::kRtp ? info.rtp_tag_len : info.rtcp_tag_len;
  const auto len = static_cast<std::size_t>(*pkt.len);
  // The MKI sits before the HMAC tag, or last after the GCM tag (and E|index for SRTCP).
  const std::size_t behind = p.mki_len + (aead ? 0 : tag);
  if (len < behind + (pkt.kind == Kind::kRtp ? kRtpHeader : kRtcpHeader)) {
    return true;  // too short: the Session says malformed
  }
  const std::uint8_t* mki = pkt.bytes + len - behind;
  for (std::size_t k = 0; k < p.key_count; ++k) {
    if (std::memcmp(mki, p.mkis.data() + k * p.mki_len, p.mki_len) == 0) {
      return true;
    }
  }
  return false;
}

srtp_err_status_t unprotect(Packet pkt, unsigned use_mki) noexcept {
  Stream* s = pkt.ctx->streams.find(pkt.ssrc);
  Policy* policy = s != nullptr ? s->policy : pkt.ctx->inbound;
  if (policy == nullptr) {
    return srtp_err_status_no_ctx;
  }
  if (policy->mki_len != 0 && use_mki == 0) {
    return srtp_err_status_bad_mki;
  }
  srtp::Session& session = keying_of(*policy, pkt.kind).session;
  if (policy->mki_len != 0 && !known_mki(*policy, session, pkt)) {
    return srtp_err_status_bad_mki;
  }
  if (s == nullptr && pkt.ctx->streams.full()) {
    return srtp_err_status_alloc_fail;
  }
  if (s != nullptr && pkt.kind == Kind::kRtp) {
    if (const srtp_err_status_t r = apply_pending_roc(*s); r != srtp_err_status_ok) {
      return r;
    }
  }
  // A template's first packet of an SSRC: the stream is made with the policy's options (its
  // extension IDs) and unmade if the packet does not authenticate — it protected nothing, so
  // it leaves no trace, and forged SSRCs cannot fill the table.
  const bool fresh = !session.has_stream(pkt.ssrc);
  if (fresh) {
    // Above the marks of the keys' other keyings too: the stream may send later (a collision).
    if (const Status added =
            add_stream_to(keying_of(*policy, pkt.kind), pkt.ssrc, policy->options(0));
        !added) {
      return status_of(added.error());
    }
  }
  const std::span<std::uint8_t> packet(pkt.bytes, static_cast<std::size_t>(*pkt.len));
  const Result<std::span<std::uint8_t>> plain =
      pkt.kind == Kind::kRtp ? session.unprotect_rtp(packet) : session.unprotect_rtcp(packet);
  if (!plain) {
    if (fresh) {
      static_cast<void>(session.remove_stream(pkt.ssrc));
    }
    return status_of(plain.error());
  }
  if (s == nullptr) {
    s = pkt.ctx->streams.insert(pkt.ssrc, policy);
  }
  note_direction(pkt, *s, Direction::kReceiver);
  *pkt.len = static_cast<int>(plain->size());
  return srtp_err_status_ok;
}

}  // namespace
}  // namespace wireseal::compat

using wireseal::compat::Kind;
using wireseal::compat::Packet;

extern "C" {

srtp_err_status_t srtp_protect_mki(srtp_ctx_t* ctx, void* rtp_hdr, int* pkt_octet_len,
                                   unsigned int use_mki, unsigned int mki_index) {
  Packet p{};
  const srtp_err_status_t s = wireseal::compat::check(ctx, rtp_hdr, pkt_octet_len, Kind::kRtp, p);
  return s != srtp_err_status_ok ? s : wireseal::compat::protect(p, use_mki, mki_index);
}

srtp_err_status_t srtp_protect(srtp_t ctx, void* rtp_hdr, int* len_ptr) {
  return srtp_protect_mki(ctx, rtp_hdr, len_ptr, 0, 0);
}

srtp_err_status_t srtp_unprotect_mki(srtp_t ctx, void* srtp_hdr, int* len_ptr,
                                     unsigned int use_mki) {
  Packet p{};
  const srtp_err_status_t s = wireseal::compat::check(ctx, srtp_hdr, len_ptr, Kind::kRtp, p);
  return s != srtp_err_status_ok ? s : wireseal::compat::unprotect(p, use_mki);
}

srtp_err_status_t srtp_unprotect(srtp_t ctx, void* srtp_hdr, int* len_ptr) {
  return srtp_unprotect_mki(ctx, srtp_hdr, len_ptr, 0);
}

srtp_err_status_t srtp_protect_rtcp_mki(srtp_t ctx, void* rtcp_hdr, int* pkt_octet_len,
                                        unsigned int use_mki, unsigned int mki_index) {
  Packet p{};
  const srtp_err_status_t s = wireseal::compat::check(ctx, rtcp_hdr, pkt_octet_len, Kind::kRtcp, p);
  return s != srtp_err_status_ok ? s : wireseal::compat::protect(p, use_mki, mki_index);
}

srtp_err_status_t srtp_protect_rtcp(srtp_t ctx, void* rtcp_hdr, int* pkt_octet_len) {
  return srtp_protect_rtcp_mki(ctx, rtcp_hdr, pkt_octet_len, 0, 0);
}

srtp_err_status_t srtp_unprotect_rtcp_mki(srtp_t ctx, void* srtcp_hdr, int* pkt_octet_len,
                                          unsigned int use_mki) {
  Packet p{};
  const srtp_err_status_t s =
      wireseal::compat::check(ctx, srtcp_hdr, pkt_octet_len, Kind::kRtcp, p);
  return s != srtp_err_status_ok ? s : wireseal::compat::unprotect(p, use_mki);
}

srtp_err_status_t srtp_unprotect_rtcp(srtp_t ctx, void* srtcp_hdr, int* pkt_octet_len) {
  return srtp_unprotect_rtcp_mki(ctx, srtcp_hdr, pkt_octet_len, 0);
}

}  // extern "C"
