#pragma once
// The message choices of the dtls_handshake_codec target, shared with its corpus generator:
// the input is a selector byte (kMessageKinds choices) and then one message body.
#include <cstdint>

namespace wireseal::fuzz {

enum class CodecKind : std::uint8_t {
  kClientHello,
  kServerHello,
  kHelloVerifyRequest,
  kCertificate,
  kServerKeyExchangeEcdhe,
  kServerKeyExchangePsk,
  kServerKeyExchangeEcdhePsk,
  kCertificateRequest,
  kServerHelloDone,
  kClientKeyExchangeEcdhe,
  kClientKeyExchangePsk,
  kClientKeyExchangeEcdhePsk,
  kCertificateVerify,
  kFinished,
  kNewSessionTicket,
  kHandshakeRecord,  // a plaintext handshake record body: the fragment walk
  kExtensions,       // a hello's extensions block
};
inline constexpr std::uint8_t kMessageKinds = 17;

}  // namespace wireseal::fuzz
