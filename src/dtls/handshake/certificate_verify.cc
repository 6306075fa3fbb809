// CertificateVerify (RFC 5246 §7.4.8).
#include "wireseal/dtls/handshake/certificate_verify.h"

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {

Result<CertificateVerify> parse_certificate_verify(std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  CertificateVerify verify;
  verify.signature_scheme = r.u16be();
  verify.signature = r.vector16();
  if (!r.done() || verify.signature.empty()) {
    return Error::kMalformed;
  }
  return verify;
}

Result<std::size_t> write_certificate_verify(const CertificateVerify& verify,
                                             std::span<std::uint8_t> out) noexcept {
  detail::MessageWriter w(out);
  w.u16(verify.signature_scheme);
  w.vector16(verify.signature, 1);
  return w.finish();
}

}  // namespace wireseal::dtls
