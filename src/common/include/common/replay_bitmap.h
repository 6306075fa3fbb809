#pragma once
// The sliding anti-replay window both DTLS (RFC 6347 §4.1.2.6) and SRTP/SRTCP
// (RFC 3711 §3.3.2) use, over storage its owner provides: a DTLS ReplayWindow owns a fixed
// array, an SRTP Session keeps every stream's bitmap in one slab allocated at set-up.
//
// The bitmap is a ring indexed by number mod size (size = 64 * words, a power of two). When
// the window slides forward, the slots of the numbers skipped over become the slots of numbers
// not seen yet and are cleared — a word at a time, so a jump across a 1024-bit window costs 16
// stores, not 1024 read-modify-writes.
//
// Use it in two steps: is_fresh() before authenticating (cheap rejection), mark() only after
// (so forged input cannot move the window).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace wireseal::detail {

// Beside the words, the owner keeps `highest` (the newest number marked) and `started`
// (whether anything was marked), wherever its layout wants them.

inline std::size_t replay_slot(std::size_t words, std::uint64_t n) noexcept {
  return static_cast<std::size_t>(n & (words * 64 - 1));
}

// replay_is_fresh is true if `n` is newer than the highest marked, or inside the window and
// not yet marked. Before anything is marked every number is fresh; numbers older than the
// window are not (nothing can say whether they were seen).
inline bool replay_is_fresh(std::span<const std::uint64_t> bits, std::uint64_t highest,
                            bool started, std::uint64_t n) noexcept {
  if (!started || n > highest) {
    return true;
  }
  if (highest - n >= bits.size() * 64) {
    return false;
  }
  const std::size_t bit = replay_slot(bits.size(), n);
  return (bits[bit / 64] >> (bit % 64) & 1) == 0;
}

// replay_is_too_old is true if `n` lies behind the window (so replay_is_fresh refused it
// without knowing whether it was seen).
inline bool replay_is_too_old(std::size_t words, std::uint64_t highest, bool started,
                              std::uint64_t n) noexcept {
  return started && n <= highest && highest - n >= words * 64;
}

// replay_clear_ring clears the slots of `count` (< the window size) numbers from `first` on.
// A run never crosses a word boundary, and the ring's wrap falls on one, so each step clears
// one word's run.
inline void replay_clear_ring(std::span<std::uint64_t> bits, std::uint64_t first,
                              std::uint64_t count) noexcept {
  while (count != 0) {
    const std::size_t bit = replay_slot(bits.size(), first);
    const std::size_t offset = bit % 64;
    const std::uint64_t run = std::min<std::uint64_t>(count, 64 - offset);
    const std::uint64_t ones = run == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << run) - 1;
    bits[bit / 64] &= ~(ones << offset);
    first += run;
    count -= run;
  }
}

// replay_mark records `n`, sliding the window when it is the newest; a number older than the
// window changes nothing.
inline void replay_mark(std::span<std::uint64_t> bits, std::uint64_t& highest, bool& started,
                        std::uint64_t n) noexcept {
  const std::size_t size = bits.size() * 64;
  if (!started || n > highest) {
    const std::uint64_t advance = started ? n - highest : size;
    if (advance >= size) {
      std::fill(bits.begin(), bits.end(), 0);
    } else {
      // The numbers skipped over; n's own slot is set below. (In order, nothing is skipped.)
      replay_clear_ring(bits, highest + 1, advance - 1);
    }
    highest = n;
    started = true;
  } else if (highest - n >= size) {
    return;
  }
  const std::size_t bit = replay_slot(bits.size(), n);
  bits[bit / 64] |= std::uint64_t{1} << (bit % 64);
}

// replay_reset forgets everything marked.
inline void replay_reset(std::span<std::uint64_t> bits, bool& started) noexcept {
  std::fill(bits.begin(), bits.end(), 0);
  started = false;
}

}  // namespace wireseal::detail
