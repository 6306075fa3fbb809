#include "wireseal/dtls/alert.h"

namespace wireseal::dtls {

const char* to_string(AlertDescription description) noexcept {
  switch (description) {
    using enum AlertDescription;
    case kCloseNotify:
      return "close_notify";
    case kUnexpectedMessage:
      return "unexpected_message";
    case kBadRecordMac:
      return "bad_record_mac";
    case kRecordOverflow:
      return "record_overflow";
    case kDecompressionFailure:
      return "decompression_failure";
    case kHandshakeFailure:
      return "handshake_failure";
    case kBadCertificate:
      return "bad_certificate";
    case kUnsupportedCertificate:
      return "unsupported_certificate";
    case kCertificateRevoked:
      return "certificate_revoked";
    case kCertificateExpired:
      return "certificate_expired";
    case kCertificateUnknown:
      return "certificate_unknown";
    case kIllegalParameter:
      return "illegal_parameter";
    case kUnknownCa:
      return "unknown_ca";
    case kAccessDenied:
      return "access_denied";
    case kDecodeError:
      return "decode_error";
    case kDecryptError:
      return "decrypt_error";
    case kProtocolVersion:
      return "protocol_version";
    case kInsufficientSecurity:
      return "insufficient_security";
    case kInternalError:
      return "internal_error";
    case kUserCanceled:
      return "user_canceled";
    case kNoRenegotiation:
      return "no_renegotiation";
    case kUnsupportedExtension:
      return "unsupported_extension";
    case kUnknownPskIdentity:
      return "unknown_psk_identity";
    case kNoApplicationProtocol:
      return "no_application_protocol";
  }
  return "unknown";
}

}  // namespace wireseal::dtls
