// The handshake message header and the fragment walk (RFC 6347 §4.2.2).
#include "wireseal/dtls/handshake/message.h"

#include "handshake/cursor.h"

namespace wireseal::dtls {

using handshake_detail::load16;
using handshake_detail::load24;

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

}  // namespace wireseal::dtls
