#include "wireseal/dtls/replay_window.h"

#include <stdexcept>

#include "common/replay_bitmap.h"

namespace wireseal::dtls {

ReplayWindow::ReplayWindow(std::size_t size) : size_(64) {
  if (size == 0 || size > kMaxSize) {
    throw std::invalid_argument("wireseal::dtls::ReplayWindow: size must be 1..1024");
  }
  while (size_ < size) {
    size_ *= 2;
  }
}

// The algorithm is common/replay_bitmap.h's, shared with SRTP; the window owns its words and
// uses the first size() / 64 of them.
bool ReplayWindow::is_fresh(std::uint64_t sequence) const noexcept {
  return wireseal::detail::replay_is_fresh(std::span<const std::uint64_t>(bits_).first(size_ / 64),
                                           top_, started_, sequence);
}

void ReplayWindow::mark(std::uint64_t sequence) noexcept {
  wireseal::detail::replay_mark(std::span<std::uint64_t>(bits_).first(size_ / 64), top_, started_,
                                sequence);
}

}  // namespace wireseal::dtls
