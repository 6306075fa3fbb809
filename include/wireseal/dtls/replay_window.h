#pragma once
// ReplayWindow: the anti-replay bitmap of RFC 6347 §4.1.2.6, one per epoch.
//
// Use it in two steps, as the RFC says: is_fresh() before decrypting (cheap rejection of
// duplicates and records older than the window), mark() only after the record authenticated
// (so forged records cannot move the window).

#include <array>
#include <cstddef>
#include <cstdint>

namespace wireseal::dtls {

class ReplayWindow {
 public:
  static constexpr std::size_t kDefaultSize = 64;
  static constexpr std::size_t kMaxSize = 1024;

  // ReplayWindow tracks the last `size` sequence numbers; `size` is rounded up to a power of
  // two >= 64 and must be at most kMaxSize (else std::invalid_argument).
  explicit ReplayWindow(std::size_t size = kDefaultSize);

  std::size_t size() const noexcept { return size_; }
  // is_fresh is true if `sequence` is newer than anything seen or inside the window and unseen.
  bool is_fresh(std::uint64_t sequence) const noexcept;
  // mark records `sequence` as received, sliding the window forward if it is the newest.
  void mark(std::uint64_t sequence) noexcept;
  // highest is the newest sequence number marked (meaningless before the first mark).
  std::uint64_t highest() const noexcept { return top_; }

 private:
  std::array<std::uint64_t, kMaxSize / 64> bits_{};
  std::size_t size_;
  std::uint64_t top_ = 0;
  bool started_ = false;
};

}  // namespace wireseal::dtls
