// ServerHello (RFC 5246 §7.4.1.3) and the extensions that change the record layer.
#include "wireseal/dtls/handshake/server_hello.h"

#include <algorithm>

#include "handshake/cursor.h"

namespace wireseal::dtls {
namespace {

constexpr std::uint16_t kExtEncryptThenMac = 22;        // RFC 7366
constexpr std::uint16_t kExtExtendedMasterSecret = 23;  // RFC 7627

}  // namespace

using handshake_detail::Cursor;

Result<ServerHello> parse_server_hello(std::span<const std::uint8_t> body) noexcept {
  Cursor c(body);
  ServerHello hello{};
  hello.version = c.u16();
  const std::span<const std::uint8_t> random = c.take(kHelloRandomSize);
  (void)c.vector8();  // session_id
  hello.cipher_suite = c.u16();
  (void)c.u8();  // compression_method
  if (!c.ok()) {
    return Error::kMalformed;
  }
  std::copy(random.begin(), random.end(), hello.random.begin());
  if (c.empty()) {
    return hello;  // no extensions at all
  }
  Cursor extensions(c.vector16());
  if (!c.ok() || !c.empty()) {
    return Error::kMalformed;
  }
  while (!extensions.empty()) {
    const std::uint16_t type = extensions.u16();
    (void)extensions.vector16();
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
