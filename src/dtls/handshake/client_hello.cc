// ClientHello (RFC 5246 §7.4.1.2, RFC 6347 §4.2.1).
#include "wireseal/dtls/handshake/client_hello.h"

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {

Result<ClientHello> parse_client_hello(std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  ClientHello hello;
  detail::read_hello_start(r, hello.version, hello.random, hello.session_id);
  hello.cookie = r.vector8();
  hello.cipher_suites = detail::read_u16_list(r);
  hello.compression_methods = r.vector8();
  if (hello.compression_methods.empty()) {
    return Error::kMalformed;
  }
  if (const Status s = detail::read_optional_extensions(r, hello.extensions); !s) {
    return s.error();
  }
  return hello;
}

Result<std::size_t> write_client_hello(const ClientHello& hello,
                                       std::span<std::uint8_t> out) noexcept {
  detail::MessageWriter w(out);
  detail::write_hello_start(w, hello.version, hello.random, hello.session_id);
  w.vector8(hello.cookie);
  w.u16_list(hello.cipher_suites);
  w.vector8(hello.compression_methods, 1);
  detail::write_hello_extensions(w, hello.extensions);
  return w.finish();
}

}  // namespace wireseal::dtls
