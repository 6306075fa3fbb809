// TLS alerts (RFC 5246 §7.2, RFC 4279 §2, RFC 5746 §3.4): what an endpoint sends or receives
// when it ends an association or refuses something.
#pragma once

#include <cstdint>

namespace wireseal::dtls {

enum class AlertLevel : std::uint8_t { kWarning = 1, kFatal = 2 };

enum class AlertDescription : std::uint8_t {
  kCloseNotify = 0,
  kUnexpectedMessage = 10,
  kBadRecordMac = 20,
  kRecordOverflow = 22,
  kDecompressionFailure = 30,
  kHandshakeFailure = 40,
  kBadCertificate = 42,
  kUnsupportedCertificate = 43,
  kCertificateRevoked = 44,
  kCertificateExpired = 45,
  kCertificateUnknown = 46,
  kIllegalParameter = 47,
  kUnknownCa = 48,
  kAccessDenied = 49,
  kDecodeError = 50,
  kDecryptError = 51,
  kProtocolVersion = 70,
  kInsufficientSecurity = 71,
  kInternalError = 80,
  kUserCanceled = 90,
  kNoRenegotiation = 100,
  kUnsupportedExtension = 110,
  kUnknownPskIdentity = 115,
  kNoApplicationProtocol = 120,  // RFC 7301 §3.2
};

// to_string names an alert as RFC 5246 spells it ("handshake_failure"); "unknown" otherwise.
const char* to_string(AlertDescription description) noexcept;

inline constexpr std::size_t kAlertSize = 2;  // level, description

}  // namespace wireseal::dtls
