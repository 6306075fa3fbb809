// StreamTable: open addressing with linear probing and backward-shift deletion.
#include "stream_table.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "wireseal/srtp/packet_index.h"

namespace wireseal::srtp::detail {

void StreamState::set_encrypted_ids(std::span<const std::uint8_t> ids) noexcept {
  encrypted_ids.fill(0);
  for (std::uint8_t id : ids) {
    if (id != 0) {  // ID 0 is padding in both extension forms (RFC 8285 §4.2, §4.3)
      encrypted_ids[id / 64] |= std::uint64_t{1} << (id % 64);
    }
  }
  encrypt_extensions = std::any_of(encrypted_ids.begin(), encrypted_ids.end(),
                                   [](std::uint64_t w) { return w != 0; });
}

namespace {

constexpr std::size_t kMaxTableSize = std::size_t{1} << 24;

// table_bits is log2 of the smallest power of two >= 2 * entries (load factor <= 1/2).
unsigned table_bits(std::size_t entries) noexcept {
  unsigned bits = 1;
  while ((std::size_t{1} << bits) < 2 * entries) {
    ++bits;
  }
  return bits;
}

}  // namespace

RetiredSenders::RetiredSenders(std::size_t capacity, std::uint64_t seed)
    : capacity_(capacity), seed_(seed) {
  if (capacity > kMaxTableSize) {
    throw std::invalid_argument("wireseal::srtp: max_retired_senders must be 0..2^24");
  }
  if (capacity != 0) {
    const unsigned bits = table_bits(capacity);
    shift_ = 64 - bits;
    mask_ = (std::size_t{1} << bits) - 1;
    entries_ = std::make_unique<Entry[]>(mask_ + 1);
  }
}

std::size_t RetiredSenders::home(std::uint32_t ssrc) const noexcept {
  return hash_ssrc(ssrc, seed_, shift_);
}

SenderMarks RetiredSenders::marks(std::uint32_t ssrc) const noexcept {
  if (capacity_ == 0) {
    return {};
  }
  for (std::size_t i = home(ssrc); entries_[i].used; i = (i + 1) & mask_) {
    if (entries_[i].ssrc == ssrc) {
      return entries_[i].marks;
    }
  }
  return {};
}

bool RetiredSenders::record(std::uint32_t ssrc, const SenderMarks& marks) noexcept {
  if (capacity_ == 0) {
    return false;
  }
  std::size_t i = home(ssrc);
  while (entries_[i].used && entries_[i].ssrc != ssrc) {
    i = (i + 1) & mask_;
  }
  Entry& e = entries_[i];
  if (!e.used) {
    if (size_ == capacity_) {
      return false;
    }
    e = Entry{ssrc, true, {}};
    ++size_;
  }
  e.marks.rtp_next = std::max(e.marks.rtp_next, marks.rtp_next);
  e.marks.rtcp_next = std::max(e.marks.rtcp_next, marks.rtcp_next);
  return true;
}

Status ResendRings::reserve(std::size_t window, std::size_t rings) {
  if (rings_ != 0) {
    return window <= window_ && rings <= rings_ ? Status{} : Status{Error::kBadState};
  }
  if (rings == 0 || rings > kMaxTableSize || window == 0 || window > kMaxReplayWindow) {
    return Error::kInvalidArgument;
  }
  const std::size_t size = std::bit_ceil(window);
  entries_ = std::make_unique<Entry[]>(size * rings);
  free_.reset(rings);
  window_ = size;
  rings_ = rings;
  return {};
}

std::uint32_t ResendRings::acquire() noexcept {
  if (free_.empty()) {
    return kNoResendRing;
  }
  const std::uint32_t ring = free_.take();
  std::fill_n(&entries_[ring * window_], window_, Entry{});
  return ring;
}

void ResendRings::release(std::uint32_t ring) noexcept {
  if (ring != kNoResendRing) {
    free_.give(ring);
  }
}

StreamTable::StreamTable(std::size_t max_streams, std::size_t window_words, std::size_t max_retired,
                         std::uint64_t seed)
    : max_streams_(max_streams),
      window_words_(window_words),
      seed_(seed),
      retired_(max_retired, ~seed) {
  if (max_streams == 0 || max_streams > kMaxTableSize) {
    throw std::invalid_argument("wireseal::srtp: max_streams must be 1..2^24");
  }
  const unsigned bits = table_bits(max_streams);
  const std::size_t slots = std::size_t{1} << bits;
  shift_ = 64 - bits;
  mask_ = slots - 1;
  slots_ = std::make_unique<Slot[]>(slots);
  std::fill(slots_.get(), slots_.get() + slots, Slot{0, kEmpty});
  records_ = std::make_unique<StreamState[]>(max_streams);
  free_.reset(max_streams);
  windows_ = std::make_unique<std::uint64_t[]>(max_streams * 2 * window_words);
}

const StreamState* StreamTable::find(std::uint32_t ssrc) const noexcept {
  return const_cast<StreamTable*>(this)->find(ssrc);  // NOLINT: same lookup, const result
}

StreamState* StreamTable::insert(std::uint32_t ssrc, const StreamState& initial) noexcept {
  if (free_.empty()) {
    return nullptr;
  }
  std::size_t i = home(ssrc);
  while (slots_[i].record != kEmpty) {
    i = (i + 1) & mask_;
  }
  const std::uint32_t record = free_.take();
  slots_[i] = Slot{ssrc, record};
  ++size_;
  StreamState& s = records_[record];
  s = first_state(ssrc, initial);
  return &s;
}

StreamState StreamTable::first_state(std::uint32_t ssrc,
                                     const StreamState& initial) const noexcept {
  StreamState s = initial;
  s.ssrc = ssrc;
  s.rtp_started = false;
  s.rtcp_started = false;
  // A stream of this SSRC sent under these keys before (here, or elsewhere as `initial`
  // says): continue above everything it used.
  const SenderMarks retired = retired_.marks(ssrc);
  s.sent.rtp_next = std::max(s.sent.rtp_next, retired.rtp_next);
  s.sent.rtcp_next = std::max(s.sent.rtcp_next, retired.rtcp_next);
  s.rtp_send_floor = s.sent.rtp_next;
  s.initial_roc = std::max(s.initial_roc, roc_of(s.sent.rtp_next));
  return s;
}

Status StreamTable::remove(std::uint32_t ssrc) noexcept {
  std::size_t i = home(ssrc);
  while (slots_[i].record == kEmpty || slots_[i].ssrc != ssrc) {
    if (slots_[i].record == kEmpty) {
      return Error::kWrongContext;
    }
    i = (i + 1) & mask_;
  }
  const StreamState& s = records_[slots_[i].record];
  if (s.sent.sent_anything() && !retired_.record(ssrc, s.sent)) {
    return Error::kBadState;  // forgetting its marks would let the SSRC reuse keystream
  }
  resends_.release(s.resend_ring);
  free_.give(slots_[i].record);
  --size_;
  // Backward-shift deletion: pull later entries of the cluster into the hole when their home
  // slot does not lie cyclically in (hole, j], so every entry stays reachable from its home.
  std::size_t hole = i;
  for (std::size_t j = (i + 1) & mask_; slots_[j].record != kEmpty; j = (j + 1) & mask_) {
    const std::size_t h = home(slots_[j].ssrc);
    const bool home_in_range = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (!home_in_range) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = Slot{0, kEmpty};
  return {};
}

}  // namespace wireseal::srtp::detail
