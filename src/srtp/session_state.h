#pragma once
// SessionState: what a Session owns (profile, derived keys per master key, stream table,
// counters) and the packet transforms, split by purpose over rtp_transform.cc,
// rtcp_transform.cc and header_extension.cc.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "key_material.h"
#include "keystream.h"
#include "stream_table.h"
#include "wireseal/result.h"
#include "wireseal/srtp/rtp_header.h"
#include "wireseal/srtp/session.h"

namespace wireseal::srtp::detail {

// estimate_rtp_index is the packet index of a packet with `seq` on stream `st` (nullptr: not
// created yet, `cfg` the defaults) per RFC 3711 §3.3.1, checked against the replay window.
// Errors: kReplay, kSequenceExhausted. Defined in rtp_transform.cc.
Result<std::uint64_t> estimate_rtp_index(StreamTable& table, StreamState* st,
                                         const StreamState& cfg, std::uint16_t seq) noexcept;

// kHmacSha1Size is the whole HMAC-SHA1 output, which the AES-CM and NULL profiles truncate to
// their tag length (RFC 3711 §4.2.1).
inline constexpr std::size_t kHmacSha1Size = 20;

// exceeds_keystream is true when `encrypted_len` bytes (everything after the RTP fixed header,
// or after the SRTCP header and SSRC) need more AES-CM keystream than one packet may use.
inline bool exceeds_keystream(const ProfileInfo& p, std::size_t encrypted_len) noexcept {
  return p.cipher == CipherKind::kAesCm && encrypted_len > kMaxAesCmKeystream;
}

// SentIndex is an index protect has taken: its stream (created if this is the SSRC's first
// packet) and the index, already marked as used; `resend` when the stream protected it before
// and may send it again only if the output is the same (ResendRings).
struct SentIndex {
  StreamState* stream;
  std::uint64_t index;
  bool resend = false;
};

// RtpPlan is what protect_rtp and the protect batch both decide about a packet before
// anything changes: its header, stream (nullptr: created when its index is taken), key,
// header protection and sizes.
struct RtpPlan {
  RtpHeader header;
  StreamState* stream;
  const StreamState* config;  // the stream, or the defaults it will be created from
  KeyMaterial* key;
  bool cryptex;                   // RFC 9335 applies to this packet
  std::uint16_t cryptex_profile;  // the extension profile cryptex writes
  bool rfc6904;                   // RFC 6904 extension elements to encrypt
  std::size_t growth;             // bytes cryptex adds (an empty extension)
  std::size_t plain_len;          // RTP packet after any growth
  std::size_t total;              // protected length
  bool header_protection() const noexcept { return cryptex || rfc6904; }
};

// SRTCP's trailer fields (RFC 3711 §3.4): the header and sender SSRC are never encrypted; the
// E flag and 31-bit SRTCP index follow the (encrypted) rest.
constexpr std::size_t kRtcpHeaderSize = 8;
constexpr std::size_t kRtcpIndexWordSize = 4;
constexpr std::uint32_t kRtcpEFlag = 0x80000000u;

// RtcpSendPlan is what protect_rtcp and the SRTCP protect batch decide about a packet before
// its crypto: its master key, SSRC, the index it was given and the E || index word.
struct RtcpSendPlan {
  KeyMaterial* key;
  std::uint32_t ssrc;
  std::uint32_t index;
  std::uint32_t word;
  std::size_t total;  // protected length
};

// RtcpOpenPlan is what unprotect_rtcp and the SRTCP unprotect batch learn from a packet's
// checks (length, MKI, stream, replay window) before authenticating it.
struct RtcpOpenPlan {
  KeyMaterial* key;
  StreamState* stream;  // nullptr: created once the packet authenticates
  std::uint32_t ssrc;
  std::uint32_t index;
  std::uint32_t word;
  bool encrypted;         // E set
  std::size_t plain_len;  // header + rest
  const std::uint8_t* tag;
};

class SessionState {
 public:
  explicit SessionState(const SessionConfig& config);

  // Packet transforms over raw buffers: `out` is `in` or disjoint from it (checked by the
  // callers in session.cc), `out_cap` its size.
  // plan_protect_rtp checks and plans the protection of the RTP packet in[0, len) into a
  // buffer of out_cap bytes into `plan`, changing nothing else: the step protect_rtp and the
  // batch share. (An out-parameter: the plan is large, and this runs per packet.)
  inline Status plan_protect_rtp(const std::uint8_t* in, std::size_t len, std::size_t out_cap,
                                 RtpPlan& plan) noexcept;  // rtp_plan.h
  Result<std::size_t> protect_rtp(const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                                  std::size_t out_cap) noexcept;
  Result<std::size_t> unprotect_rtp(const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                                    std::size_t out_cap) noexcept;
  Result<std::size_t> protect_rtcp(const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                                   std::size_t out_cap) noexcept;
  Result<std::size_t> unprotect_rtcp(const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                                     std::size_t out_cap) noexcept;
  // plan_protect_rtcp checks the RTCP packet in[0, len), gives it its SRTCP index and copies
  // its header to `out`: everything protect_rtcp does before the crypto, shared with the
  // batch. plan_unprotect_rtcp is unprotect_rtcp's checks, against the current state, with
  // the error not yet counted as a drop. Both in rtcp_transform.cc.
  Status plan_protect_rtcp(const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                           std::size_t out_cap, RtcpSendPlan& plan) noexcept;
  Status plan_unprotect_rtcp(const std::uint8_t* in, std::size_t len, std::size_t out_cap,
                             RtcpOpenPlan& plan) noexcept;
  // judge_rtcp_stream is what unprotect_rtcp answers about an SRTCP packet of `ssrc` with
  // `index` before its tag, from the current state: `st` is its stream (nullptr: not created
  // yet, and the table may create it), then kTableFull / kWrongContext, or the replay window's
  // refusal. The batch asks again after earlier packets of its chunk. In rtcp_transform.cc.
  Status judge_rtcp_stream(std::uint32_t ssrc, std::uint32_t index, StreamState*& st) noexcept;

  // Batches (batch.cc): results identical to the single-packet transforms applied in order,
  // with the AES-CTR, HMAC-SHA1 and GCM work of up to 16 packets handed to the crypto core's
  // batch entry points at once. Jobs are in place (PacketJob).
  void protect_rtp_batch(std::span<PacketJob> jobs) noexcept;
  void unprotect_rtp_batch(std::span<PacketJob> jobs) noexcept;
  // The same for SRTCP (rtcp_batch.cc).
  void protect_rtcp_batch(std::span<PacketJob> jobs) noexcept;
  void unprotect_rtcp_batch(std::span<PacketJob> jobs) noexcept;

  // cryptex_growth is how many bytes cryptex adds to a packet with header `h` (4 when it has
  // CSRCs but no extension: RFC 9335 §5.1 appends an empty one).
  static std::size_t cryptex_growth(const RtpHeader& h, bool cryptex) noexcept {
    return cryptex && h.csrc_count != 0 && !h.has_extension ? kRtpExtensionPreambleSize : 0;
  }
  // stream_or_defaults is the stream of `ssrc`, or the template new streams copy.
  const StreamState& stream_or_defaults(std::uint32_t ssrc) const noexcept {
    const StreamState* s = streams.find(ssrc);
    return s != nullptr ? *s : defaults;
  }
  // key_for_mki finds the master key whose MKI is `mki` (mki_len bytes); nullptr if none.
  // Inline for the common case of no MKI (one key).
  KeyMaterial* key_for_mki(const std::uint8_t* mki) noexcept {
    return mki_len == 0 ? &keys[0] : key_for_listed_mki(mki);
  }
  KeyMaterial* key_for_listed_mki(const std::uint8_t* mki) noexcept;
  // create_stream inserts `ssrc` initialised from the defaults; nullptr when full.
  StreamState* create_stream(std::uint32_t ssrc) noexcept;
  // take_rtp_index gives a packet with `seq` of stream `st` (nullptr: not created yet) its
  // index and marks it used before any keystream exists, so no failure after it can let the
  // index be used twice: the receiver's estimate (which keeps indexes still in the window from
  // being reused), refused with kReplay below the stream's send floor. The stream is created
  // only once the index is granted; kKeyLimit when the stream's master key is used up.
  // Defined in rtp_transform.cc.
  Result<SentIndex> take_rtp_index(StreamState* st, std::uint32_t ssrc, std::uint16_t seq) noexcept;
  // take_resend_index is take_rtp_index's answer for a `seq` the replay window refused: the
  // index again (resend) when `st` allows resends and its ring remembers protecting it, else
  // kReplay. Defined in rtp_transform.cc.
  Result<SentIndex> take_resend_index(StreamState& st, std::uint16_t seq) noexcept;
  // settle_resend records the fingerprint of the packet protected under `taken` in its
  // stream's ring or, for a resend, checks it against the first one: kReplay for a different
  // packet, whose bytes protect_rtp then zeroes. Defined in rtp_transform.cc.
  Status settle_resend(const SentIndex& taken, const std::uint8_t* fingerprint) noexcept;
  // take_rtcp_index is the same for the next SRTCP index of `ssrc` (kSequenceExhausted at
  // 2^31). Defined in rtcp_transform.cc.
  Result<SentIndex> take_rtcp_index(StreamState* st, std::uint32_t ssrc) noexcept;

  const ProfileInfo* profile;
  std::size_t mki_len;
  bool auto_create;
  std::uint64_t srtp_key_limit;  // packets one master key may protect (RFC 3711 §9.2)
  std::uint64_t srtcp_key_limit;
  std::vector<KeyMaterial> keys;
  StreamTable streams;
  StreamState defaults;  // template for streams created on first packet
  DropCounters drops;

  // count_drop records an unprotect failure by reason and returns it.
  Error count_drop(Error e) noexcept;
};

}  // namespace wireseal::srtp::detail
