#pragma once
// Certificate (RFC 5246 §7.4.2, §7.4.6): a chain of DER certificates, the sender's own first.
// Parsing checks the framing and views the message; iterate the chain with CertificateWalker.

#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::dtls {

// Certificate is the certificate_list's contents: each entry a 3-byte length and its DER
// bytes (non-empty). An empty list is allowed (a client without a certificate).
struct Certificate {
  std::span<const std::uint8_t> certificate_list;
};

// parse_certificate reads a complete body; kMalformed on bad framing, an empty entry or bytes
// left over.
Result<Certificate> parse_certificate(std::span<const std::uint8_t> body) noexcept;

// write_certificate writes a body holding `chain` (DER certificates, leaf first).
Result<std::size_t> write_certificate(std::span<const std::span<const std::uint8_t>> chain,
                                      std::span<std::uint8_t> out) noexcept;

// CertificateWalker yields the DER certificates of a parsed list in order.
class CertificateWalker {
 public:
  explicit CertificateWalker(const Certificate& certificate) noexcept
      : rest_(certificate.certificate_list) {}
  // next sets `der` to the next certificate; false at the end.
  bool next(std::span<const std::uint8_t>& der) noexcept;

 private:
  std::span<const std::uint8_t> rest_;
};

}  // namespace wireseal::dtls
