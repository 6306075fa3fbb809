#pragma once
// StreamTable: the streams of a Session, found by SSRC in O(1) with no allocation after
// construction.
//
// Layout: a dense array of StreamState records (max_streams of them, reused through a free
// list), an open-addressing hash index of (SSRC, record number) pairs with linear probing and
// backward-shift deletion (no tombstones, so probe chains never degrade), sized to a power of
// two at least twice max_streams (load <= 1/2), and one array of replay-window bitmaps, two
// windows (SRTP, SRTCP) per record. The hash is multiplicative with a per-table random seed,
// so an attacker who does not know the seed cannot aim SSRCs at one probe chain.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/result.h"
#include "wireseal/srtp/replay_window.h"
#include "wireseal/srtp/session.h"

namespace wireseal::srtp::detail {

// hash_ssrc is the home slot of `ssrc` in a table of 2^(64 - shift) slots: a multiplicative
// hash of the SSRC mixed with a per-table random seed (senders choose SSRCs, so they must not
// be able to pile their streams into one probe run).
inline std::size_t hash_ssrc(std::uint32_t ssrc, std::uint64_t seed, unsigned shift) noexcept {
  return static_cast<std::size_t>(((std::uint64_t{ssrc} ^ seed) * 0x9E3779B97F4A7C15ull) >> shift);
}

// SenderMarks (wireseal/srtp/session.h) are what keeps a sending stream's keystream unique;
// StreamTable keeps them per SSRC beyond the stream's removal (RetiredSenders).

// kNoResendRing: a stream without a ResendRings ring.
inline constexpr std::uint32_t kNoResendRing = UINT32_MAX;

// StreamState is the per-SSRC state (96 bytes) plus its two replay bitmaps.
struct StreamState {
  std::uint64_t rtp_highest = 0;     // highest SRTP index protected or authenticated
  std::uint64_t rtcp_highest = 0;    // highest SRTCP index authenticated (receiver)
  SenderMarks sent;                  // protect's high-water marks
  std::uint64_t rtp_send_floor = 0;  // protect refuses lower indexes (raised by set_roc)
  std::uint32_t ssrc = 0;
  std::uint32_t initial_roc = 0;              // ROC assumed for the first packet (RFC 3711 §3.3.1)
  std::uint8_t key_index = 0;                 // master key protect uses
  bool rtp_started = false;                   // rtp_highest valid
  bool rtcp_started = false;                  // rtcp_highest valid
  bool cryptex = false;                       // RFC 9335
  bool encrypt_extensions = false;            // RFC 6904 set non-empty
  bool allow_resend = false;                  // StreamOptions::allow_resend
  std::uint32_t resend_ring = kNoResendRing;  // its ring in ResendRings, once it protected
  // RFC 6904 encrypted extension IDs as a 256-bit set (one-byte IDs 1..14, two-byte 1..255).
  std::array<std::uint64_t, 4> encrypted_ids{};

  bool encrypts_id(std::uint8_t id) const noexcept {
    return (encrypted_ids[id / 64] >> (id % 64) & 1) != 0;
  }
  void set_encrypted_ids(std::span<const std::uint8_t> ids) noexcept;
};

// RetiredSenders remembers the SenderMarks of removed sending streams, by SSRC, so that a
// stream re-created for the same SSRC under the same keys continues above them instead of
// starting again at index 0. Fixed capacity, allocated at set-up; entries are never deleted
// (a re-created stream that is removed again just raises its entry).
class RetiredSenders {
 public:
  RetiredSenders(std::size_t capacity, std::uint64_t seed);

  // marks returns what was recorded for `ssrc` (the initial marks if nothing was).
  SenderMarks marks(std::uint32_t ssrc) const noexcept;
  // record raises the entry of `ssrc` to `marks`; false when `ssrc` is new and there is no
  // room left.
  bool record(std::uint32_t ssrc, const SenderMarks& marks) noexcept;
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  struct Entry {
    std::uint32_t ssrc;
    bool used;
    SenderMarks marks;
  };
  std::size_t home(std::uint32_t ssrc) const noexcept;

  std::size_t capacity_;
  std::size_t size_ = 0;
  std::uint64_t seed_;
  unsigned shift_ = 0;
  std::size_t mask_ = 0;
  std::unique_ptr<Entry[]> entries_;
};

// FreeNumbers is a stack of the free numbers among 0..n-1 (stream records, resend rings),
// allocated at set-up so that taking and giving back never allocates. 0 is taken first.
class FreeNumbers {
 public:
  void reset(std::size_t n) {
    numbers_ = std::make_unique<std::uint32_t[]>(n);
    for (std::size_t i = 0; i < n; ++i) {
      numbers_[i] = static_cast<std::uint32_t>(n - 1 - i);
    }
    top_ = n;
  }
  bool empty() const noexcept { return top_ == 0; }
  // take returns a free number; only when !empty().
  std::uint32_t take() noexcept { return numbers_[--top_]; }
  void give(std::uint32_t n) noexcept { numbers_[top_++] = n; }

 private:
  std::unique_ptr<std::uint32_t[]> numbers_;
  std::size_t top_ = 0;
};

// ResendRings let streams that allow identical resends (libsrtp's allow_repeat_tx) protect a
// recent index again. Each ring holds, for the stream's last `window` protected SRTP indexes,
// a 16-byte fingerprint of the protected packet: the GCM tag, or the first 16 bytes of the
// untruncated HMAC-SHA1. Under the same key, index and header a fingerprint matches only for
// the same payload, so a resend is let out only when its bytes equal the first protection
// (nothing new is revealed); any other packet at that index is wiped and refused.
// Rings are allocated by reserve (set-up) and handed to streams without allocating.
class ResendRings {
 public:
  static constexpr std::size_t kFingerprintSize = 16;
  struct Entry {
    std::uint64_t index_plus1;  // 0: empty
    std::array<std::uint8_t, kFingerprintSize> fingerprint;
  };

  // reserve allocates `rings` rings of `window` entries (a power of two); kBadState if rings
  // were reserved before with fewer or smaller ones.
  Status reserve(std::size_t window, std::size_t rings);
  // acquire hands out an emptied ring (kNoResendRing when none is free).
  std::uint32_t acquire() noexcept;
  void release(std::uint32_t ring) noexcept;
  // entry is the slot of `index` in `ring` (shared by indexes `window` apart).
  Entry& entry(std::uint32_t ring, std::uint64_t index) noexcept {
    return entries_[ring * window_ + static_cast<std::size_t>(index & (window_ - 1))];
  }

 private:
  std::size_t window_ = 0;
  std::size_t rings_ = 0;
  std::unique_ptr<Entry[]> entries_;
  FreeNumbers free_;
};

class StreamTable {
 public:
  // StreamTable allocates room for `max_streams` streams with replay windows of
  // `window_words` 64-bit words each, and for the marks of `max_retired` removed senders.
  // `seed` randomises the hashes.
  StreamTable(std::size_t max_streams, std::size_t window_words, std::size_t max_retired,
              std::uint64_t seed);

  // find returns the stream of `ssrc` or nullptr. Inline: every packet looks its stream up.
  StreamState* find(std::uint32_t ssrc) noexcept {
    for (std::size_t i = home(ssrc);; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.record == kEmpty) {
        return nullptr;
      }
      if (slot.ssrc == ssrc) {
        return &records_[slot.record];
      }
    }
  }
  const StreamState* find(std::uint32_t ssrc) const noexcept;
  // first_state is the state a new stream of `ssrc` starts from: a copy of `initial` whose
  // sender marks are raised to those of an earlier stream of `ssrc` that was removed (and its
  // ROC to theirs, when higher than initial.initial_roc).
  StreamState first_state(std::uint32_t ssrc, const StreamState& initial) const noexcept;
  // insert creates the stream `ssrc` (which must not exist) in first_state(ssrc, initial);
  // nullptr when full.
  StreamState* insert(std::uint32_t ssrc, const StreamState& initial) noexcept;
  // full is true when insert would fail.
  bool full() const noexcept { return free_.empty(); }
  // remove forgets `ssrc`, keeping its sender marks if it sent anything. kWrongContext if it
  // was not there; kBadState (nothing removed) if it is a sender and no room is left to keep
  // its marks.
  Status remove(std::uint32_t ssrc) noexcept;
  std::size_t retired_senders() const noexcept { return retired_.size(); }
  // sender_marks are the marks of the stream `ssrc`, or of its removed stream, or the initial.
  SenderMarks sender_marks(std::uint32_t ssrc) const noexcept {
    const StreamState* s = find(ssrc);
    return s != nullptr ? s->sent : retired_.marks(ssrc);
  }

  ReplayWindow rtp_window(StreamState& s) noexcept {
    return {window_bits(s, 0), s.rtp_highest, s.rtp_started};
  }
  ReplayWindow rtcp_window(StreamState& s) noexcept {
    return {window_bits(s, 1), s.rtcp_highest, s.rtcp_started};
  }
  std::size_t window_words() const noexcept { return window_words_; }
  ResendRings& resends() noexcept { return resends_; }

  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return max_streams_; }
  // bytes_per_stream is what one stream costs: its record, its windows and its share of the
  // hash index.
  std::size_t bytes_per_stream() const noexcept {
    return sizeof(StreamState) + 2 * window_words_ * 8 + (mask_ + 1) * sizeof(Slot) / max_streams_;
  }

 private:
  struct Slot {
    std::uint32_t ssrc;
    std::uint32_t record;  // kEmpty when free
  };
  static constexpr std::uint32_t kEmpty = UINT32_MAX;

  std::size_t home(std::uint32_t ssrc) const noexcept { return hash_ssrc(ssrc, seed_, shift_); }
  // window_bits: inline, as it runs two or three times for every packet.
  std::span<std::uint64_t> window_bits(const StreamState& s, std::size_t which) noexcept {
    const auto record = static_cast<std::size_t>(&s - records_.get());
    return {windows_.get() + (2 * record + which) * window_words_, window_words_};
  }

  std::size_t max_streams_;
  std::size_t window_words_;
  std::uint64_t seed_;
  unsigned shift_;
  std::size_t mask_;
  std::size_t size_ = 0;
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<StreamState[]> records_;
  FreeNumbers free_;  // the free record numbers
  std::unique_ptr<std::uint64_t[]> windows_;
  RetiredSenders retired_;
  ResendRings resends_;
};

}  // namespace wireseal::srtp::detail
