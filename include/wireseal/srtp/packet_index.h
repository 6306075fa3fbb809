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
// must be changed before that, RFC 3711 §9.2). Inline: returned from an out-of-line call, the
// optional came back through memory, stored as a word and a flag byte and reloaded as two
// words, a store-forwarding stall on every received packet.
constexpr std::optional<std::uint64_t> estimate_packet_index(std::uint64_t highest_index,
                                                             std::uint16_t sequence) noexcept {
  constexpr std::uint32_t kHalf = 1u << 15;
  const std::uint32_t roc = roc_of(highest_index);
  const std::uint32_t s_l = sequence_of(highest_index);
  const std::uint32_t seq = sequence;
  // v is ROC - 1, ROC or ROC + 1 (as a signed offset, so the edges can be detected).
  int v = 0;
  if (s_l < kHalf) {
    if (seq > s_l && seq - s_l > kHalf) {
      v = -1;  // SEQ is from before the last rollover
    }
  } else if (s_l - kHalf > seq) {
    v = 1;  // SEQ has wrapped past 2^16
  }
  if (v < 0 && roc == 0) {
    return std::nullopt;
  }
  if (v > 0 && roc == UINT32_MAX) {
    return std::nullopt;
  }
  const std::uint32_t guess = v < 0 ? roc - 1 : (v > 0 ? roc + 1 : roc);
  return packet_index(guess, sequence);
}

}  // namespace wireseal::srtp
