// ClientHello (RFC 5246 §7.4.1.2, RFC 6347 §4.2.1).
#include "wireseal/dtls/handshake/client_hello.h"

#include <algorithm>

#include "handshake/cursor.h"

namespace wireseal::dtls {

using handshake_detail::Cursor;

Result<ClientHello> parse_client_hello(std::span<const std::uint8_t> body) noexcept {
  Cursor c(body);
  ClientHello hello{};
  hello.version = c.u16();
  const std::span<const std::uint8_t> random = c.take(kHelloRandomSize);
  // session_id, cookie, cipher_suites, compression_methods and extensions follow; the
  // record layer needs none of them, but their lengths must still be consistent.
  (void)c.vector8();
  (void)c.vector8();
  (void)c.vector16();
  (void)c.vector8();
  if (!c.empty()) {
    (void)c.vector16();
  }
  if (!c.ok() || !c.empty()) {
    return Error::kMalformed;
  }
  std::copy(random.begin(), random.end(), hello.random.begin());
  return hello;
}

}  // namespace wireseal::dtls
