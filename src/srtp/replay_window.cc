// SRTP/SRTCP replay window: a ring bitmap indexed by index mod size (RFC 3711 §3.3.2).
#include "wireseal/srtp/replay_window.h"

#include "common/replay_bitmap.h"

namespace wireseal::srtp {

std::size_t replay_window_words(std::size_t size) noexcept {
  std::size_t bits = 64;
  while (bits < size && bits < kMaxReplayWindow) {
    bits *= 2;
  }
  return bits / 64;
}

// The algorithm is common/replay_bitmap.h's, shared with DTLS.
bool ReplayWindow::is_fresh_within(std::uint64_t index) const noexcept {
  return wireseal::detail::replay_is_fresh(bits_, *highest_, *started_, index);
}

bool ReplayWindow::is_too_old(std::uint64_t index) const noexcept {
  return wireseal::detail::replay_is_too_old(bits_.size(), *highest_, *started_, index);
}

void ReplayWindow::mark_any(std::uint64_t index) noexcept {
  wireseal::detail::replay_mark(bits_, *highest_, *started_, index);
}

void ReplayWindow::reset() noexcept { wireseal::detail::replay_reset(bits_, *started_); }

}  // namespace wireseal::srtp
