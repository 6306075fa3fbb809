// row_kernel (bench_kernels.h): one rule per family of operation names, most specific first.
#include "bench_kernels.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "wireseal/crypto/backend.h"
#include "wireseal/crypto/cbc_hmac.h"

namespace wireseal::cli {
namespace {

using crypto::Backend;
using crypto::Primitive;

bool has(std::string_view op, std::string_view part) {
  return op.find(part) != std::string_view::npos;
}

// backend_kernel names what kAuto runs for `primitive`: the backend and its variant.
std::string backend_kernel(Primitive primitive, const crypto::KernelReport& k) {
  switch (crypto::resolve(primitive, Backend::kAuto)) {
    case Backend::kNative:
      if (primitive == Primitive::kChaCha20Poly1305) {
        return "native avx512";
      }
      return "native " + k.native_aes;
    case Backend::kIpsecMb:
      return "ipsec-mb " + k.ipsec_mb;
    default:
      return "openssl";
  }
}

// gcm_kernel: with the native x86 GCM, single messages and long batch jobs run on ipsec-mb's
// kernel and short batch jobs on the multi-message VAES one (docs/DESIGN.md).
std::string gcm_kernel(bool batch, std::uint64_t size, const crypto::KernelReport& k) {
  if (k.aes_gcm_batch_max == 0) {
    return backend_kernel(Primitive::kAesGcm, k);
  }
  if (batch && size <= k.aes_gcm_batch_max) {
    return "native vaes-gcm-x8";
  }
  return "ipsec-mb " + k.ipsec_mb;
}

std::string chacha_kernel(std::uint64_t record_size, const crypto::KernelReport& k) {
  if (k.chacha20_poly1305_native_max != 0 && record_size > k.chacha20_poly1305_native_max) {
    return "ipsec-mb " + k.ipsec_mb;  // inside the native object (docs/DESIGN.md)
  }
  return backend_kernel(Primitive::kChaCha20Poly1305, k);
}

// cbc_kernel: a CBC suite's AES-CBC and HMAC, and whether its seal runs the two stitched:
// crypto::cbc_hmac_stitches on what the bench's records MAC after their 13-byte pseudo-header,
// the plaintext (MAC-then-encrypt) or IV || padded ciphertext (encrypt-then-MAC, padding 1..16).
std::string cbc_kernel(std::string_view op, std::uint64_t size, bool batch,
                       const crypto::KernelReport& k, const std::string& hmac) {
  const bool sha384 = has(op, "cbcsha384");
  const std::string mac =
      sha384 ? "hmac-sha384 openssl-sha"
             : fmt::format("hmac-{} {}", has(op, "cbcsha256") ? "sha256" : "sha1", hmac);
  std::string kernel = fmt::format("aes-cbc {} + {}", backend_kernel(Primitive::kAesCbc, k), mac);
  constexpr std::size_t kPseudoHeader = 13;
  const std::uint64_t hashed = has(op, "etm") ? 16 + (size / 16 + 1) * 16 : size;
  // Saturated into size_t (32 bits on armv7): a longer record has a run all the same.
  const auto hashed_len = static_cast<std::size_t>(
      std::min<std::uint64_t>(hashed, std::numeric_limits<std::size_t>::max()));
  if (k.cbc_hmac_stitched && !sha384 && !batch && has(op, "_encrypt") &&
      crypto::cbc_hmac_stitches(kPseudoHeader, hashed_len)) {
    kernel += ", stitched";
  }
  return kernel;
}

// scaled splits "scale/<suite>_<op>_<size>" into the operation it repeats and its size.
bool scaled(std::string_view op, std::string* inner, std::uint64_t* size) {
  constexpr std::string_view kPrefix = "scale/";
  if (!op.starts_with(kPrefix)) {
    return false;
  }
  op.remove_prefix(kPrefix.size());
  const std::size_t cut = op.rfind('_');
  if (cut == std::string_view::npos) {
    return false;
  }
  const std::string_view digits = op.substr(cut + 1);
  if (std::from_chars(digits.data(), digits.data() + digits.size(), *size).ec != std::errc()) {
    return false;
  }
  *inner = std::string(op.substr(0, cut));
  return true;
}

}  // namespace

std::string row_kernel(std::string_view op, std::uint64_t size) {
  std::string inner;
  if (scaled(op, &inner, &size)) {
    op = inner;
  }
  const crypto::KernelReport k = crypto::kernel_report();
  const bool batch = has(op, "batch");
  std::string hmac = batch ? k.hmac_batch : k.hmac;
  if (has(op, "chacha20poly1305")) {
    return chacha_kernel(size, k);
  }
  if (has(op, "gcm") || has(op, "gmac")) {
    return gcm_kernel(batch, size, k);
  }
  if (has(op, "ccm")) {
    return backend_kernel(Primitive::kAesCcm, k);
  }
  if (has(op, "cbcsha")) {
    return cbc_kernel(op, size, batch, k, hmac);
  }
  if (has(op, "aes128cm_sha1")) {
    return fmt::format("aes-ctr {} + hmac-sha1 {}", backend_kernel(Primitive::kAesCtr, k), hmac);
  }
  if (has(op, "cmac")) {
    return backend_kernel(Primitive::kAesCmac, k);
  }
  if (has(op, "cbc_")) {
    return backend_kernel(Primitive::kAesCbc, k);
  }
  if (has(op, "ctr")) {
    return backend_kernel(Primitive::kAesCtr, k);
  }
  if (has(op, "hmac_sha1") || has(op, "hmac_sha256")) {
    return hmac;
  }
  if (has(op, "hmac_sha")) {
    return "openssl-sha";
  }
  if (has(op, "handshake")) {
    return "openssl (key exchange, signatures)";
  }
  return "-";
}

}  // namespace wireseal::cli
