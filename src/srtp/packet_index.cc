// RFC 3711 Appendix A: the receiver's packet index estimate.
#include "wireseal/srtp/packet_index.h"

namespace wireseal::srtp {

std::optional<std::uint64_t> estimate_packet_index(std::uint64_t highest_index,
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
