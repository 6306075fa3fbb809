#pragma once
// CertificateVerify (RFC 5246 §7.4.8): the client's signature over the handshake so far.

#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::dtls {

struct CertificateVerify {
  std::uint16_t signature_scheme = 0;       // SignatureAndHashAlgorithm
  std::span<const std::uint8_t> signature;  // <1..2^16-1>
};

// parse_certificate_verify reads a complete body; kMalformed on bad lengths or bytes left.
Result<CertificateVerify> parse_certificate_verify(std::span<const std::uint8_t> body) noexcept;

// write_certificate_verify writes the body (kInvalidArgument, kBufferTooSmall).
Result<std::size_t> write_certificate_verify(const CertificateVerify& verify,
                                             std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls
