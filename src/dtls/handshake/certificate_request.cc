// CertificateRequest (RFC 5246 §7.4.4).
#include "wireseal/dtls/handshake/certificate_request.h"

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {
namespace {

// well_formed_names: every DistinguishedName<1..2^16-1> inside the list fits.
bool well_formed_names(std::span<const std::uint8_t> list) noexcept {
  ByteReader r(list);
  while (r.ok() && !r.empty()) {
    if (r.vector16().empty()) {
      return false;
    }
  }
  return r.ok();
}

}  // namespace

Result<CertificateRequest> parse_certificate_request(std::span<const std::uint8_t> body) noexcept {
  ByteReader r(body);
  CertificateRequest request;
  request.certificate_types = r.vector8();
  request.signature_algorithms = detail::read_u16_list(r);
  request.certificate_authorities = r.vector16();
  if (!r.done() || request.certificate_types.empty() ||
      !well_formed_names(request.certificate_authorities)) {
    return Error::kMalformed;
  }
  return request;
}

Result<std::size_t> write_certificate_request(const CertificateRequest& request,
                                              std::span<std::uint8_t> out) noexcept {
  detail::MessageWriter w(out);
  w.vector8(request.certificate_types, 1);
  w.u16_list(request.signature_algorithms);
  if (!well_formed_names(request.certificate_authorities)) {
    w.reject();
  }
  w.vector16(request.certificate_authorities);
  return w.finish();
}

}  // namespace wireseal::dtls
