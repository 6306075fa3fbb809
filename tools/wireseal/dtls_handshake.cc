#include "dtls_handshake.h"

#include <algorithm>

namespace wireseal::cli {
namespace {

constexpr std::uint16_t kExtEncryptThenMac = 22;
constexpr std::uint16_t kExtExtendedMasterSecret = 23;

std::uint32_t load24(const std::uint8_t* p) noexcept {
  return std::uint32_t{p[0]} << 16 | std::uint32_t{p[1]} << 8 | p[2];
}
std::uint16_t load16(const std::uint8_t* p) noexcept {
  return static_cast<std::uint16_t>(p[0] << 8 | p[1]);
}

// Cursor reads a message front to back; every read is bounds-checked and a failed read
// leaves it failed, so parsers check ok() once at the end of a group of reads.
class Cursor {
 public:
  explicit Cursor(std::span<const std::uint8_t> bytes) noexcept : rest_(bytes) {}
  bool ok() const noexcept { return ok_; }
  bool empty() const noexcept { return rest_.empty(); }

  std::span<const std::uint8_t> take(std::size_t n) noexcept {
    if (!ok_ || n > rest_.size()) {
      ok_ = false;
      return {};
    }
    const std::span<const std::uint8_t> out = rest_.first(n);
    rest_ = rest_.subspan(n);
    return out;
  }
  std::uint16_t u16() noexcept {
    const std::span<const std::uint8_t> b = take(2);
    return ok_ ? load16(b.data()) : 0;
  }
  std::uint8_t u8() noexcept {
    const std::span<const std::uint8_t> b = take(1);
    return ok_ ? b[0] : 0;
  }
  // vector8 / vector16 take a vector with a one- or two-byte length prefix.
  std::span<const std::uint8_t> vector8() noexcept { return take(u8()); }
  std::span<const std::uint8_t> vector16() noexcept { return take(u16()); }

 private:
  std::span<const std::uint8_t> rest_;
  bool ok_ = true;
};

}  // namespace

const char* handshake_name(std::uint8_t msg_type) noexcept {
  switch (static_cast<HandshakeType>(msg_type)) {
    case HandshakeType::kHelloRequest:
      return "HelloRequest";
    case HandshakeType::kClientHello:
      return "ClientHello";
    case HandshakeType::kServerHello:
      return "ServerHello";
    case HandshakeType::kHelloVerifyRequest:
      return "HelloVerifyRequest";
    case HandshakeType::kNewSessionTicket:
      return "NewSessionTicket";
    case HandshakeType::kCertificate:
      return "Certificate";
    case HandshakeType::kServerKeyExchange:
      return "ServerKeyExchange";
    case HandshakeType::kCertificateRequest:
      return "CertificateRequest";
    case HandshakeType::kServerHelloDone:
      return "ServerHelloDone";
    case HandshakeType::kCertificateVerify:
      return "CertificateVerify";
    case HandshakeType::kClientKeyExchange:
      return "ClientKeyExchange";
    case HandshakeType::kFinished:
      return "Finished";
  }
  return "unknown";
}

Result<HandshakeFragment> HandshakeReader::next() noexcept {
  if (rest_.empty()) {
    return Error::kBadState;
  }
  if (rest_.size() < kHandshakeHeaderSize) {
    rest_ = {};
    return Error::kMalformed;
  }
  const std::uint8_t* h = rest_.data();
  const std::uint32_t length = load24(h + 1);
  const std::uint32_t offset = load24(h + 6);
  const std::size_t fragment_length = load24(h + 9);
  if (fragment_length > rest_.size() - kHandshakeHeaderSize ||
      std::uint64_t{offset} + fragment_length > length) {
    rest_ = {};
    return Error::kMalformed;
  }
  HandshakeFragment f{h[0], length, load16(h + 4), offset,
                      rest_.subspan(kHandshakeHeaderSize, fragment_length)};
  rest_ = rest_.subspan(kHandshakeHeaderSize + fragment_length);
  return f;
}

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

}  // namespace wireseal::cli
