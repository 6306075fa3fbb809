#pragma once
// Replay protection for SRTP (RFC 3711 §3.3.2) and SRTCP (§3.4): a sliding window of the
// most recent indices, kept as a ring bitmap in storage the owner provides.
//
// A Session keeps the bitmaps of all its streams in one array allocated at set-up, so streams
// stay small and creating one allocates nothing. Use it in two steps: is_fresh() before the
// authentication check (cheap rejection), mark() only after the packet authenticated, so
// forged packets cannot move the window.

#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::srtp {

inline constexpr std::size_t kDefaultReplayWindow = 128;  // libsrtp's default, > RFC's 64
inline constexpr std::size_t kMaxReplayWindow = 32768;    // libsrtp's limit (0x8000)

// replay_window_words is the number of 64-bit words a window of at least `size` indices
// needs: `size` rounded up to a power of two, at least 64, divided by 64.
std::size_t replay_window_words(std::size_t size) noexcept;

// ReplayWindow is a non-owning view: `bits` (replay_window_words(n) words), the highest index
// marked, and whether anything was marked yet. Copying the view copies references only.
class ReplayWindow {
 public:
  ReplayWindow(std::span<std::uint64_t> bits, std::uint64_t& highest, bool& started) noexcept
      : bits_(bits), highest_(&highest), started_(&started) {}

  // size is the number of indices the window covers (64 * bits.size()).
  std::size_t size() const noexcept { return bits_.size() * 64; }
  // is_fresh is true if `index` is newer than the highest marked index, or inside the window
  // and not yet marked. Before anything is marked every index is fresh.
  // (Inline for what nearly every packet is, an index past the highest.)
  bool is_fresh(std::uint64_t index) const noexcept {
    return !*started_ || index > *highest_ || is_fresh_within(index);
  }
  // is_too_old is true if `index` lies behind the window: is_fresh refuses it as kReplayOld.
  bool is_too_old(std::uint64_t index) const noexcept;
  // refusal is why is_fresh refused `index`: kReplayOld behind the window, else kReplay.
  Error refusal(std::uint64_t index) const noexcept {
    return is_too_old(index) ? Error::kReplayOld : Error::kReplay;
  }
  // mark records `index`, sliding the window when it is the newest. Marking an index older
  // than the window does nothing.
  // (Inline for a packet in order, the next index: nothing is skipped, so nothing is cleared.)
  void mark(std::uint64_t index) noexcept {
    if (*started_ && index == *highest_ + 1) {
      *highest_ = index;
      const std::size_t slot = static_cast<std::size_t>(index & (size() - 1));
      bits_[slot / 64] |= std::uint64_t{1} << (slot % 64);
    } else {
      mark_any(index);
    }
  }
  // reset forgets everything (used when the ROC is set explicitly).
  void reset() noexcept;

 private:
  bool is_fresh_within(std::uint64_t index) const noexcept;  // an index at most the highest
  void mark_any(std::uint64_t index) noexcept;

  std::span<std::uint64_t> bits_;
  std::uint64_t* highest_;
  bool* started_;
};

}  // namespace wireseal::srtp
