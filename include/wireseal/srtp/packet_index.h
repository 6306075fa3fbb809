#pragma once
// SRTP packet index (RFC 3711 §3.3.1): the 48-bit value ROC * 2^16 + SEQ that keys the
// keystream and the replay window, and its estimate from a received 16-bit sequence number.

#include <cstdint>
#include <optional>

namespace wireseal::srtp {

inline constexpr std::uint64_t kMaxPacketIndex = (std::uint64_t{1} << 48) - 1;

// packet_index combines a rollover counter and a sequence number.
constexpr std::uint64_t packet_index(std::uint32_t roc, std::uint16_t sequence) noexcept {
  return std::uint64_t{roc} << 16 | sequence;
}
// roc_of / sequence_of split an index back into its parts.
constexpr std::uint32_t roc_of(std::uint64_t index) noexcept {
  return static_cast<std::uint32_t>(index >> 16);
}
constexpr std::uint16_t sequence_of(std::uint64_t index) noexcept {
  return static_cast<std::uint16_t>(index);
}

// estimate_packet_index is RFC 3711 Appendix A: given the highest index seen so far
// (ROC || s_l) and the sequence number of a new packet, it guesses the packet's index as the
// one closest to s_l among ROC-1, ROC and ROC+1. Returns std::nullopt when the guess falls
// outside [0, 2^48): a packet "before" index 0, or a rollover past ROC = 2^32 - 1 (the key
// must be changed before that, RFC 3711 §9.2).
std::optional<std::uint64_t> estimate_packet_index(std::uint64_t highest_index,
                                                   std::uint16_t sequence) noexcept;

}  // namespace wireseal::srtp
