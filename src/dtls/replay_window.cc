#include "wireseal/dtls/replay_window.h"

#include <stdexcept>

namespace wireseal::dtls {

ReplayWindow::ReplayWindow(std::size_t size) : size_(64) {
  if (size == 0 || size > kMaxSize) {
    throw std::invalid_argument("wireseal::dtls::ReplayWindow: size must be 1..1024");
  }
  while (size_ < size) {
    size_ *= 2;
  }
}

bool ReplayWindow::is_fresh(std::uint64_t sequence) const noexcept {
  if (empty_ || sequence > top_) {
    return true;
  }
  if (top_ - sequence >= size_) {
    return false;  // older than the window
  }
  return !test(sequence);
}

void ReplayWindow::mark(std::uint64_t sequence) noexcept {
  if (empty_ || sequence > top_) {
    // The bitmap is a ring indexed by sequence mod size: slots for the numbers we skip over
    // become the slots of sequences we have not seen, so clear them.
    const std::uint64_t advance = empty_ ? size_ : sequence - top_;
    if (advance >= size_) {
      bits_.fill(0);
    } else {
      for (std::uint64_t s = top_ + 1; s <= sequence; ++s) {
        const std::size_t bit = s & (size_ - 1);
        bits_[bit / 64] &= ~(std::uint64_t{1} << (bit % 64));
      }
    }
    top_ = sequence;
    empty_ = false;
  } else if (top_ - sequence >= size_) {
    return;
  }
  const std::size_t bit = sequence & (size_ - 1);
  bits_[bit / 64] |= std::uint64_t{1} << (bit % 64);
}

}  // namespace wireseal::dtls
