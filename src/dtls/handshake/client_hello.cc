// ClientHello (RFC 5246 §7.4.1.2, RFC 6347 §4.2.1).
#include "wireseal/dtls/handshake/client_hello.h"

#include "common/byte_cursor.h"

namespace wireseal::dtls {

Result<ClientHello> parse_client_hello(std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  ClientHello hello{};
  hello.version = r.u16be();
  r.copy_to(hello.random);
  // The vectors that follow are read only to be skipped: the record layer needs none of
  // them, but their lengths must still be consistent.
  r.vector8();   // session_id
  r.vector8();   // cookie
  r.vector16();  // cipher_suites
  r.vector8();   // compression_methods
  if (!r.empty()) {
    r.vector16();  // extensions (absent in a minimal hello)
  }
  if (!r.done()) {
    return Error::kMalformed;
  }
  return hello;
}

}  // namespace wireseal::dtls
