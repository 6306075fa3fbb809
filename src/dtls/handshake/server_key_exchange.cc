// ServerKeyExchange (RFC 5246 §7.4.3, RFC 8422 §5.4, RFC 4279 §2, RFC 5489 §2).
#include "wireseal/dtls/handshake/server_key_exchange.h"

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {
namespace {

void read_ecdh_params(ByteReader& r, ServerKeyExchange& m) noexcept {
  const std::size_t start = r.offset();
  const std::span<const std::uint8_t> all = r.rest();
  if (r.u8() != kNamedCurve) {
    r.fail();
  }
  m.named_group = r.u16be();
  m.public_key = r.vector8();
  if (m.public_key.empty()) {
    r.fail();
  }
  if (r.ok()) {
    m.signed_params = all.first(r.offset() - start);
  }
}

void write_ecdh_params(detail::MessageWriter& w, const ServerKeyExchange& m) noexcept {
  w.u8(kNamedCurve);
  w.u16(m.named_group);
  w.vector8(m.public_key, 1);
}

}  // namespace

Result<ServerKeyExchange> parse_server_key_exchange(KeyExchange kind,
                                                    std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  ServerKeyExchange m;
  if (kind != KeyExchange::kEcdhe) {
    m.psk_identity_hint = r.vector16();
  }
  if (kind != KeyExchange::kPsk) {
    read_ecdh_params(r, m);
  }
  if (kind == KeyExchange::kEcdhe) {
    m.signature_scheme = r.u16be();
    m.signature = r.vector16();
    if (m.signature.empty()) {
      return Error::kMalformed;  // the grammar allows it, but nothing verifies it
    }
  }
  if (!r.done()) {
    return Error::kMalformed;
  }
  return m;
}

Result<std::size_t> write_server_ecdh_params(std::uint16_t named_group,
                                             std::span<const std::uint8_t> public_key,
                                             std::span<std::uint8_t> out) noexcept {
  detail::MessageWriter w(out);
  ServerKeyExchange m;
  m.named_group = named_group;
  m.public_key = public_key;
  write_ecdh_params(w, m);
  return w.finish();
}

Result<std::size_t> write_server_key_exchange(KeyExchange kind, const ServerKeyExchange& m,
                                              std::span<std::uint8_t> out) noexcept {
  detail::MessageWriter w(out);
  if (kind != KeyExchange::kEcdhe) {
    w.vector16(m.psk_identity_hint);
  }
  if (kind != KeyExchange::kPsk) {
    write_ecdh_params(w, m);
  }
  if (kind == KeyExchange::kEcdhe) {
    w.u16(m.signature_scheme);
    w.vector16(m.signature, 1);
  }
  return w.finish();
}

}  // namespace wireseal::dtls
