// SRTP/SRTCP replay window: a ring bitmap indexed by index mod size (RFC 3711 §3.3.2).
#include "wireseal/srtp/replay_window.h"

#include <algorithm>

namespace wireseal::srtp {

std::size_t replay_window_words(std::size_t size) noexcept {
  std::size_t bits = 64;
  while (bits < size && bits < kMaxReplayWindow) {
    bits *= 2;
  }
  return bits / 64;
}

bool ReplayWindow::is_fresh(std::uint64_t index) const noexcept {
  if (!*started_ || index > *highest_) {
    return true;
  }
  if (*highest_ - index >= size()) {
    return false;  // older than the window: cannot tell, so reject (RFC 3711 §3.3.2)
  }
  return !test(index);
}

void ReplayWindow::mark(std::uint64_t index) noexcept {
  if (!*started_ || index > *highest_) {
    // The ring slots of the indices skipped over now stand for unseen indices: clear them.
    const std::uint64_t advance = *started_ ? index - *highest_ : size();
    if (advance >= size()) {
      std::fill(bits_.begin(), bits_.end(), 0);
    } else {
      for (std::uint64_t i = *highest_ + 1; i <= index; ++i) {
        const std::size_t bit = static_cast<std::size_t>(i & (size() - 1));
        bits_[bit / 64] &= ~(std::uint64_t{1} << (bit % 64));
      }
    }
    *highest_ = index;
    *started_ = true;
  } else if (*highest_ - index >= size()) {
    return;
  }
  const std::size_t bit = static_cast<std::size_t>(index & (size() - 1));
  bits_[bit / 64] |= std::uint64_t{1} << (bit % 64);
}

void ReplayWindow::reset() noexcept {
  std::fill(bits_.begin(), bits_.end(), 0);
  *started_ = false;
}

}  // namespace wireseal::srtp
