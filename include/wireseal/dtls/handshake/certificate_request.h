#pragma once
// CertificateRequest (RFC 5246 §7.4.4): the server asks for the client's certificate.

#include <cstdint>
#include <span>

#include "wireseal/dtls/handshake/message.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

// ClientCertificateType values (RFC 5246 §7.4.4, RFC 8422 §5.5).
inline constexpr std::uint8_t kRsaSign = 1;
inline constexpr std::uint8_t kEcdsaSign = 64;

struct CertificateRequest {
  std::span<const std::uint8_t> certificate_types;  // <1..2^8-1>
  U16List signature_algorithms;                     // <2..2^16-2>
  // The DistinguishedName list's contents: each a 2-byte length and DER bytes (may be empty).
  std::span<const std::uint8_t> certificate_authorities;
};

// parse_certificate_request reads a complete body; kMalformed on bad lengths or bytes left.
Result<CertificateRequest> parse_certificate_request(std::span<const std::uint8_t> body) noexcept;

// write_certificate_request writes the body (kInvalidArgument, kBufferTooSmall).
Result<std::size_t> write_certificate_request(const CertificateRequest& request,
                                              std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls
