// HelloVerifyRequest (RFC 6347 §4.2.1).
#include "wireseal/dtls/handshake/hello_verify_request.h"

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {

Result<HelloVerifyRequest> parse_hello_verify_request(std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  HelloVerifyRequest request;
  request.server_version = r.u16be();
  request.cookie = r.vector8();
  if (!r.done()) {
    return Error::kMalformed;
  }
  return request;
}

Result<std::size_t> write_hello_verify_request(const HelloVerifyRequest& request,
                                               std::span<std::uint8_t> out) noexcept {
  detail::MessageWriter w(out);
  w.u16(request.server_version);
  w.vector8(request.cookie);
  return w.finish();
}

}  // namespace wireseal::dtls
