// ServerHello (RFC 5246 §7.4.1.3).
#include "wireseal/dtls/handshake/server_hello.h"

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {

Result<ServerHello> parse_server_hello(std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  ServerHello hello;
  detail::read_hello_start(r, hello.version, hello.random, hello.session_id);
  hello.cipher_suite = r.u16be();
  hello.compression_method = r.u8();
  if (const Status s = detail::read_optional_extensions(r, hello.extensions); !s) {
    return s.error();
  }
  return hello;
}

Result<std::size_t> write_server_hello(const ServerHello& hello,
                                       std::span<std::uint8_t> out) noexcept {
  detail::MessageWriter w(out);
  detail::write_hello_start(w, hello.version, hello.random, hello.session_id);
  w.u16(hello.cipher_suite);
  w.u8(hello.compression_method);
  detail::write_hello_extensions(w, hello.extensions);
  return w.finish();
}

}  // namespace wireseal::dtls
