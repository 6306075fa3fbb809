// The handshake message header and the fragment walk (RFC 6347 §4.2.2).
#include "wireseal/dtls/handshake/message.h"

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {

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
  ByteReader r(rest_);
  HandshakeFragment f{};
  f.msg_type = r.u8();
  f.length = r.u24be();
  f.message_seq = r.u16be();
  f.fragment_offset = r.u24be();
  f.body = r.vector24();  // fragment_length, then the fragment
  // A truncated header or fragment, or a fragment reaching past its message, spoils the rest
  // of the record: nothing after it can be framed with confidence.
  if (!r.ok() || std::uint64_t{f.fragment_offset} + f.body.size() > f.length) {
    rest_ = {};
    return Error::kMalformed;
  }
  rest_ = r.rest();
  return f;
}

Result<std::size_t> write_handshake_fragment(std::uint8_t msg_type, std::uint16_t message_seq,
                                             std::span<const std::uint8_t> body, std::size_t offset,
                                             std::size_t length,
                                             std::span<std::uint8_t> out) noexcept {
  constexpr std::size_t kMax24 = (std::size_t{1} << 24) - 1;
  if (body.size() > kMax24 || offset > body.size() || length > body.size() - offset) {
    return Error::kInvalidArgument;
  }
  ByteWriter w(out);
  detail::write_handshake_header(w, msg_type, body.size(), message_seq, offset, length);
  w.bytes(body.subspan(offset, length));
  if (!w.ok()) {
    return Error::kBufferTooSmall;
  }
  return w.size();
}

}  // namespace wireseal::dtls
