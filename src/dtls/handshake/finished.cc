// Finished (RFC 5246 §7.4.9). The body is the verify_data itself, so the writer is a copy the
// engine does in place.
#include "wireseal/dtls/handshake/finished.h"

namespace wireseal::dtls {

Result<std::span<const std::uint8_t>> parse_finished(std::span<const std::uint8_t> body) noexcept {
  if (body.size() != kVerifyDataSize) {
    return Error::kMalformed;
  }
  return body;
}

}  // namespace wireseal::dtls
