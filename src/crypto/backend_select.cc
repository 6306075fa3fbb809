// Backend choice per primitive. The kAuto policy encodes benchmark results (bench/crypto_*.cc,
// docs/BENCHMARKING.md); change it only with numbers from `wireseal bench` in the commit.
#include <stdexcept>
#include <string>

#include "backend/native.h"
#include "common/cpu_features.h"
#include "wireseal/crypto/backend.h"

namespace wireseal::crypto {

std::string_view to_string(Backend backend) noexcept {
  switch (backend) {
    case Backend::kAuto:
      return "auto";
    case Backend::kOpenSsl:
      return "openssl";
    case Backend::kNative:
      return "native";
    case Backend::kIpsecMb:
      return "ipsec-mb";
  }
  return "?";
}

bool is_available(Primitive primitive, Backend backend) noexcept {
  switch (backend) {
    case Backend::kAuto:
    case Backend::kOpenSsl:
      return true;
    case Backend::kNative:
      return detail::native_supports(primitive);
    case Backend::kIpsecMb:
      return detail::ipsecmb_supports(primitive);
  }
  return false;
}

Backend resolve(Primitive primitive, Backend backend) {
  if (backend != Backend::kAuto) {
    if (!is_available(primitive, backend)) {
      throw std::invalid_argument("wireseal: backend " + std::string(to_string(backend)) +
                                  " is not available for this primitive on this CPU/build");
    }
    return backend;
  }
  // Preference order measured on x86-64 (AES-NI, VAES): the fixed per-call cost of OpenSSL's
  // EVP layer (~250 ns per AEAD call) dominates small packets, so any kernel we call directly
  // wins there. Where the native backend has an AEAD that ipsec-mb also has, the native object
  // holds ipsec-mb's inside it and adds what beats it: AES-GCM (AVX-512 with VAES and
  // VPCLMULQDQ: batches of up to eight messages of up to 256 bytes on our multi-message
  // kernel; single messages and longer ones on ipsec-mb's) and ChaCha20-Poly1305 (AVX-512F:
  // our kernel up to 512 bytes, half ipsec-mb's time at 16 B on Zen 5). Elsewhere ipsec-mb's
  // GCM is the fastest.
  if (is_available(primitive, Backend::kNative)) {
    return Backend::kNative;
  }
  if (is_available(primitive, Backend::kIpsecMb)) {
    return Backend::kIpsecMb;
  }
  return Backend::kOpenSsl;
}

KernelReport kernel_report() {
  const cpu::FeatureMask& mask = cpu::feature_mask();
  KernelReport r;
  r.cpu_features = cpu::feature_names(cpu::features());
  r.mask_spec = mask.spec;
  r.mask_disabled = cpu::feature_names(mask.disabled);
  r.mask_unknown = mask.unknown;
  if (!is_available(Primitive::kAesCtr, Backend::kNative)) {
    r.native_aes = "unavailable";
  } else {
    r.native_aes = detail::native_aes_name();
  }
  const bool native_sha = detail::hmac_uses_native_sha();
  r.hmac = native_sha ? detail::native_sha_kernels().name : "openssl-sha";
  r.hmac_batch = native_sha ? detail::native_sha_kernels().lanes_name : "openssl-sha-x1";
  if (resolve(Primitive::kChaCha20Poly1305, Backend::kAuto) == Backend::kNative &&
      detail::ipsecmb_supports(Primitive::kChaCha20Poly1305)) {
    r.chacha20_poly1305_native_max = detail::kNativeChaChaOwnMax;
  }
  if (resolve(Primitive::kAesGcm, Backend::kAuto) == Backend::kNative) {
    r.aes_gcm_batch_max = detail::native_gcm_batch_max();
  }
  r.cbc_hmac_stitched = native_sha && detail::native_cbc_stitches_sha() &&
                        resolve(Primitive::kAesCbc, Backend::kAuto) == Backend::kNative;
  const std::string_view ipsecmb = detail::ipsecmb_architecture();
  r.ipsec_mb = ipsecmb.empty() ? "unavailable" : std::string(ipsecmb);
  return r;
}

}  // namespace wireseal::crypto
