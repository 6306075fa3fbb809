#pragma once
// The chunk an SRTP or SRTCP batch queues its packets in (batch.cc, rtcp_batch.cc): up to 16
// packets under one master key whose crypto is deferred to the crypto core's batch calls,
// with the job slots those calls take.
#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <type_traits>

#include "keystream.h"
#include "session_state.h"

namespace wireseal::srtp::detail {

constexpr std::size_t kLanes = 16;  // Hmac::compute_batch's lane group

// Lane is one packet of a chunk whose crypto is deferred.
struct Lane {
  PacketJob* job;
  std::uint64_t index;          // protect: the index used; unprotect: the provisional estimate
                                // (SRTP) or the packet's explicit index (SRTCP)
  std::uint64_t highest_after;  // unprotect: the stream's highest index if this one and the
                                // queued ones of its SSRC before it succeed
  StreamState* stream;          // unprotect: the packet's stream (AEAD: it exists), or null
  std::uint32_t ssrc;
  std::uint16_t sequence;  // SRTP unprotect, AES-CM and NULL
  std::size_t header_len;  // SRTP unprotect, AES-CM and NULL
  std::size_t plain_len;   // RTP header + payload
  std::size_t out_len;     // protect: the protected length
  std::uint8_t roc_be[4];
  std::uint8_t expected[kHmacSha1Size];  // unprotect: the recomputed tag
  std::uint8_t rtcp_aad[12];             // SRTCP AEAD: header and SSRC, then E || index
  bool decrypt;                          // SRTCP unprotect: E set and AES-CM
};

// JobSlots is room for up to kLanes batch jobs of type T, each built in place in slot(i) when
// its packet is queued. An array of jobs would be value-initialised on every batch call
// (std::span has no trivial constructor): kilobytes of stores, a tenth of a batched 100-byte
// GCM packet.
template <class T>
class JobSlots {
  static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>);

 public:
  // Left uninitialised on purpose (a Chunk is default-initialised, never value-initialised):
  // slot i is read only after a job is built in slot(i).
  JobSlots() = default;

  // slot is where job i is built, by placement new with aggregate initialisation: in place,
  // with no temporary whose copy would stall on store forwarding.
  void* slot(std::size_t i) noexcept { return bytes_ + i * sizeof(T); }
  T& operator[](std::size_t i) noexcept { return data()[i]; }
  T* data() noexcept {
    return std::launder(reinterpret_cast<T*>(bytes_));  // NOLINT: the slots are Ts once made
  }

 private:
  alignas(T) std::byte bytes_[kLanes * sizeof(T)];
};

// Chunk is up to kLanes deferred packets under one master key, with the job arrays of the
// batch calls. It lives on the caller's stack (a few KiB); its spans point into itself, so it
// is neither copied nor moved.
struct Chunk {
  Chunk() = default;
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;

  // Entries [0, count) are written before they are read; the others are left uninitialised
  // rather than zeroed on every batch (kilobytes of stores).
  KeyMaterial* km = nullptr;
  CipherKeys* keys = nullptr;  // km->rtp or km->rtcp
  bool rtcp = false;           // the windows to mark: SRTCP's, else SRTP's
  std::size_t count = 0;
  std::array<Lane, kLanes> lanes;
  std::array<Iv16, kLanes> cm_ivs;
  std::array<Iv12, kLanes> gcm_ivs;
  JobSlots<crypto::CtrJob> ctr;
  JobSlots<crypto::HmacJob> hmac;
  JobSlots<crypto::SealJob> seal;
  JobSlots<crypto::OpenJob> open;

  // full_for: the chunk must be flushed before it can take a packet under `key` (it is full,
  // or holds another master key's packets: one batch call per key).
  bool full_for(const KeyMaterial* key) const noexcept {
    return count == kLanes || (count != 0 && km != key);
  }
  // latest_of is the latest queued packet of `ssrc`, or null. (Streams are neither created nor
  // removed while a chunk is open, so its stream lookup stands.)
  const Lane* latest_of(std::uint32_t ssrc) const noexcept {
    for (std::size_t i = count; i-- > 0;) {
      if (lanes[i].ssrc == ssrc) {
        return &lanes[i];
      }
    }
    return nullptr;
  }
  // holds tells whether a packet of `ssrc` with `index` is queued (a later copy's fate would
  // depend on that one's).
  bool holds(std::uint32_t ssrc, std::uint64_t index) const noexcept {
    for (std::size_t i = 0; i < count; ++i) {
      if (lanes[i].ssrc == ssrc && lanes[i].index == index) {
        return true;
      }
    }
    return false;
  }
  // take_lane queues one more packet under `key`, an SRTCP one when `for_rtcp`, and returns
  // its lane (after full_for was false or the chunk was flushed).
  std::size_t take_lane(KeyMaterial* key, bool for_rtcp) noexcept {
    km = key;
    keys = for_rtcp ? &key->rtcp : &key->rtp;
    rtcp = for_rtcp;
    return count++;
  }
};

// make_aead_job and make_hmac_job build a packet's job in its slot. (Assigned from a braced
// temporary, a job was built on the stack with 8-byte stores and copied with 16-byte loads,
// which stall on store forwarding.)
template <class AeadJob>  // SealJob or OpenJob
void make_aead_job(JobSlots<AeadJob>& slots, std::size_t i, std::span<const std::uint8_t> nonce,
                   std::span<const std::uint8_t> aad, std::span<std::uint8_t> payload,
                   decltype(AeadJob::tag) tag) noexcept {
  ::new (slots.slot(i)) AeadJob{nonce, aad, payload, payload, tag, Status{}};
}

inline void make_hmac_job(JobSlots<crypto::HmacJob>& slots, std::size_t i,
                          std::span<const std::uint8_t> message,
                          std::span<const std::uint8_t> roc_be,
                          std::span<std::uint8_t> out) noexcept {
  ::new (slots.slot(i)) crypto::HmacJob{{message, roc_be, {}}, out, Status{}};
}

// make_ctr_job builds slot i's keystream job over `payload` with counter block cm_ivs[i].
inline void make_ctr_job(Chunk& c, std::size_t i, std::span<std::uint8_t> payload) noexcept {
  ::new (c.ctr.slot(i))
      crypto::CtrJob{std::span<const std::uint8_t, 16>(c.cm_ivs[i]), payload, payload, Status{}};
}

inline void set_result(PacketJob& job, const Result<std::size_t>& r) noexcept {
  job.status = r ? Status{} : Status{r.error()};
  if (r) {
    job.length = *r;
  }
}

inline Status first_error(Status a, Status b) noexcept { return a ? b : a; }

// flush_protect runs the queued packets' crypto (keystream and tag, or AEAD sealing) and
// reports each job's result; the chunk is empty after it. Defined in batch.cc.
void flush_protect(const SessionState& s, Chunk& c) noexcept;
// flush_unprotect_aead opens the queued AEAD packets together and, for each that
// authenticates, marks its index in its stream's window (SRTCP's when c.rtcp); the chunk is
// empty after it. Defined in batch.cc.
void flush_unprotect_aead(SessionState& s, Chunk& c) noexcept;
// decrypt_authenticated runs the keystream jobs c.ctr[0, lanes.size()) of the authenticated
// packets `lanes` in one batch under keys.ctr (touched only if there are any: NULL profiles
// have none); a packet whose keystream fails is wiped and dropped. Defined in batch.cc.
void decrypt_authenticated(SessionState& s, Chunk& c, CipherKeys& keys,
                           std::span<Lane* const> lanes) noexcept;

}  // namespace wireseal::srtp::detail
