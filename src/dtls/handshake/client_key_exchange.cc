// ClientKeyExchange (RFC 5246 §7.4.7, RFC 8422 §5.7, RFC 4279 §2, RFC 5489 §2).
#include "wireseal/dtls/handshake/client_key_exchange.h"

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {

Result<ClientKeyExchange> parse_client_key_exchange(KeyExchange kind,
                                                    std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  ClientKeyExchange m;
  if (kind != KeyExchange::kEcdhe) {
    m.psk_identity = r.vector16();
  }
  if (kind != KeyExchange::kPsk) {
    m.public_key = r.vector8();
    if (m.public_key.empty()) {
      return Error::kMalformed;
    }
  }
  if (!r.done()) {
    return Error::kMalformed;
  }
  return m;
}

Result<std::size_t> write_client_key_exchange(KeyExchange kind, const ClientKeyExchange& m,
                                              std::span<std::uint8_t> out) noexcept {
  detail::MessageWriter w(out);
  if (kind != KeyExchange::kEcdhe) {
    w.vector16(m.psk_identity);
  }
  if (kind != KeyExchange::kPsk) {
    w.vector8(m.public_key, 1);
  }
  return w.finish();
}

}  // namespace wireseal::dtls
