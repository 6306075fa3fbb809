// Certificate (RFC 5246 §7.4.2).
#include "wireseal/dtls/handshake/certificate.h"

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {

Result<Certificate> parse_certificate(std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  Certificate certificate{r.vector24()};
  if (!r.done()) {
    return Error::kMalformed;
  }
  ByteReader entries(certificate.certificate_list);
  while (entries.ok() && !entries.empty()) {
    if (entries.vector24().empty()) {
      return Error::kMalformed;  // ASN.1Cert<1..2^24-1>
    }
  }
  if (!entries.ok()) {
    return Error::kMalformed;
  }
  return certificate;
}

Result<std::size_t> write_certificate(std::span<const std::span<const std::uint8_t>> chain,
                                      std::span<std::uint8_t> out) noexcept {
  detail::MessageWriter w(out);
  const ByteWriter::VectorMark list = w.raw().begin_vector24();
  for (const std::span<const std::uint8_t> der : chain) {
    w.vector24(der, 1);
  }
  w.raw().end_vector(list);
  return w.finish();
}

bool CertificateWalker::next(std::span<const std::uint8_t>& der) noexcept {
  return detail::next_entry(rest_, 3, der);
}

}  // namespace wireseal::dtls
