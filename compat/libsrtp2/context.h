#pragma once
// The drop-in's model of a libsrtp session (srtp_t), built on wireseal::srtp::Session.
//
// libsrtp keeps a list of streams, each with its own keys, plus up to two templates
// (ssrc_any_inbound / ssrc_any_outbound) that new SSRCs are cloned from. Here:
//
//   srtp_ctx_t_
//     ├─ keyings: one wireseal Session per distinct (profile, keys, MKIs). Streams of
//     │           the same keys share it, and keyings that hold one master key know each
//     │           other: a stream entering one starts above every index its SSRC used in
//     │           the others, since the tag length and the MKI do not change session keys.
//     ├─ policies: one Policy per srtp_policy_t added (specific SSRC or template): which
//     │           Keying protects RTP and which RTCP, MKI layout, extension IDs to encrypt.
//     └─ streams: SSRC → Policy, fixed-capacity open addressing, found in O(1) per packet;
//                 an SSRC not in it falls to the inbound/outbound template.
//
// Everything is allocated by srtp_create / srtp_add_stream / srtp_update; packets allocate
// nothing.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "srtp2/srtp.h"
#include "wireseal/result.h"
#include "wireseal/srtp/session.h"

namespace wireseal::compat {

inline constexpr std::size_t kStreamsPerKeying = 256;  // streams one set of keys may hold
// allow_repeat_tx: how many streams of one keying may resend at a time, and how far back
// (the replay window, at most this many packets): 32 * 256 * 24 bytes per keying.
inline constexpr std::size_t kResendStreamsPerKeying = 32;
inline constexpr std::size_t kMaxResendWindow = 256;
inline constexpr std::size_t kStreamSlots = 1024;  // SSRCs one srtp_t may hold (power of 2)

// kKdfInputSize: what one master key's session keys are derived from (RFC 3711 §4.3), as
// kdf_input_of lays it out: key length, key (zero-padded to 32 bytes), salt (padded to 14).
inline constexpr std::size_t kKdfInputSize = 1 + 32 + 14;

// Keying is one wireseal Session and what it was made from (kept to find it again; wiped).
struct Keying {
  std::vector<std::uint8_t> identity;  // profile, MKI length, keys, salts, MKIs
  srtp::Session session;
  srtp::CipherKind cipher;
  // kKdfInputSize bytes per master key; none for NULL profiles, which derive no encryption
  // key and so have no keystream to reuse.
  std::vector<std::uint8_t> kdf_inputs;
  // The other keyings deriving their session keys from one of this one's master keys: they
  // share its index book (a stream starts above the marks its SSRC left in any of them).
  std::vector<Keying*> sharing;
  Keying(std::vector<std::uint8_t> id, srtp::Session s, std::vector<std::uint8_t> inputs)
      : identity(std::move(id)),
        session(std::move(s)),
        cipher(session.profile().cipher),
        kdf_inputs(std::move(inputs)) {}
  ~Keying();
  Keying(const Keying&) = delete;
  Keying& operator=(const Keying&) = delete;
};

// Policy is one srtp_policy_t as added.
struct Policy {
  srtp_ssrc_type_t type = ssrc_undefined;
  std::uint32_t ssrc = 0;
  Keying* rtp = nullptr;
  Keying* rtcp = nullptr;  // == rtp when one Session serves both
  std::size_t key_count = 1;
  std::size_t mki_len = 0;                  // 0: no MKI on the wire
  std::vector<std::uint8_t> mkis;           // key_count * mki_len bytes
  std::vector<std::uint8_t> extension_ids;  // RFC 6904 IDs to encrypt
  bool allow_repeat_tx = false;             // byte-identical RTP resends (StreamOptions)
  srtp::StreamOptions options(std::uint8_t key_index, std::uint32_t roc = 0) const noexcept;
};

enum class Direction : std::uint8_t { kUnknown, kSender, kReceiver };

// Stream is one SSRC's entry: its policy, whether it sent or received, its current key.
struct Stream {
  std::uint32_t ssrc = 0;
  Policy* policy = nullptr;  // nullptr: empty slot
  bool removed = false;      // a tombstone: lookups go on past it
  Direction direction = Direction::kUnknown;
  std::uint8_t key_index = 0;     // the master key protect uses (MKI index)
  std::uint32_t pending_roc = 0;  // srtp_set_stream_roc's value, applied by the next packet
};

// StreamMap finds a Stream by SSRC (linear probing over kStreamSlots).
class StreamMap {
 public:
  StreamMap() : slots_(kStreamSlots) {}
  Stream* find(std::uint32_t ssrc) noexcept;
  // insert adds `ssrc` (not present) for `policy`; nullptr when the map is full.
  Stream* insert(std::uint32_t ssrc, Policy* policy) noexcept;
  void erase(Stream* s) noexcept;
  bool full() const noexcept { return live_ >= kStreamSlots / 4 * 3; }
  // for_each_of calls f(stream) for every live stream of policy `p`.
  template <class F>
  void for_each_of(const Policy* p, F&& f) {
    for (Stream& s : slots_) {
      if (s.policy == p && !s.removed) {
        f(s);
      }
    }
  }

 private:
  std::vector<Stream> slots_;
  // Live entries only: a removed SSRC's tombstone is reused by the next insert that probes
  // past it, so SSRC churn never fills the map.
  std::size_t live_ = 0;
};

}  // namespace wireseal::compat

struct srtp_ctx_t_ {
  std::vector<std::unique_ptr<wireseal::compat::Keying>> keyings;
  std::vector<std::unique_ptr<wireseal::compat::Policy>> policies;
  wireseal::compat::Policy* inbound = nullptr;   // ssrc_any_inbound template
  wireseal::compat::Policy* outbound = nullptr;  // ssrc_any_outbound template
  wireseal::compat::StreamMap streams;
  void* user_data = nullptr;
};

namespace wireseal::compat {

// raw reads an enum field a C caller filled in as the int it may really hold: a value outside
// the enumeration is no valid enum in C++, so it is never loaded as one.
template <class E>
int raw(const E& field) noexcept {
  static_assert(sizeof(E) == sizeof(int));
  int v = 0;
  std::memcpy(&v, &field, sizeof v);
  return v;
}

// ssrc_type_of is a policy's SSRC type, ssrc_undefined for a value outside the enumeration.
inline srtp_ssrc_type_t ssrc_type_of(const srtp_policy_t& p) noexcept {
  const int t = raw(p.ssrc.type);
  return t >= ssrc_specific && t <= ssrc_any_outbound ? static_cast<srtp_ssrc_type_t>(t)
                                                      : ssrc_undefined;
}

// status_of maps a wireseal Error to the srtp_err_status_t libsrtp gives for that failure.
srtp_err_status_t status_of(Error e) noexcept;

// report_event calls the installed event handler, if any.
void report_event(srtp_t session, std::uint32_t ssrc, srtp_event_t event) noexcept;

// add_stream_to gives `ssrc` a stream in `k` under `options`, above every index its SSRC used
// in the keyings that share k's master keys. Allocates nothing: protect and unprotect call it
// for the first packet of an SSRC.
Status add_stream_to(Keying& k, std::uint32_t ssrc, srtp::StreamOptions options) noexcept;

// profile_of finds the wireseal profile of a libsrtp crypto policy; false when wireseal
// does not implement it (AES-CM without authentication, GCM with 8-byte tags, ...).
bool profile_of(const srtp_crypto_policy_t& p, srtp::Profile& out) noexcept;

}  // namespace wireseal::compat
