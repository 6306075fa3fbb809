// ServerHello (RFC 5246 §7.4.1.3) and the extensions that change the record layer.
#include "wireseal/dtls/handshake/server_hello.h"

#include "common/byte_cursor.h"

namespace wireseal::dtls {
namespace {

constexpr std::uint16_t kExtEncryptThenMac = 22;        // RFC 7366
constexpr std::uint16_t kExtExtendedMasterSecret = 23;  // RFC 7627

}  // namespace

Result<ServerHello> parse_server_hello(std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  ServerHello hello{};
  hello.version = r.u16be();
  r.copy_to(hello.random);
  r.vector8();  // session_id
  hello.cipher_suite = r.u16be();
  r.u8();  // compression_method
  if (!r.ok()) {
    return Error::kMalformed;
  }
  if (r.empty()) {
    return hello;  // no extensions at all
  }
  ByteReader extensions = r.sub_vector16();
  if (!r.done()) {
    return Error::kMalformed;
  }
  while (!extensions.empty()) {
    const std::uint16_t type = extensions.u16be();
    extensions.vector16();  // extension_data: only the type matters here
    if (!extensions.ok()) {
      return Error::kMalformed;
    }
    if (type == kExtEncryptThenMac) {
      hello.encrypt_then_mac = true;
    } else if (type == kExtExtendedMasterSecret) {
      hello.extended_master_secret = true;
    }
  }
  return hello;
}

}  // namespace wireseal::dtls
