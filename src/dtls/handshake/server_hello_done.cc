// ServerHelloDone (RFC 5246 §7.4.5). Its body is empty, so there is nothing to write.
#include "wireseal/dtls/handshake/server_hello_done.h"

namespace wireseal::dtls {

Status parse_server_hello_done(std::span<const std::uint8_t> body) noexcept {
  return body.empty() ? Status{} : Status{Error::kMalformed};
}

}  // namespace wireseal::dtls
