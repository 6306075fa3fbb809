#pragma once
// Backend selection for keyed crypto objects.
//
// Every keyed object picks one implementation when it is constructed and keeps it for its
// lifetime: there is no per-message dispatch on CPU features. kAuto picks the fastest
// implementation measured on this CPU (see docs/BENCHMARKING.md); tests force each backend
// in turn and differential-test it against OpenSSL.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace wireseal::crypto {

enum class Backend : std::uint8_t {
  kAuto,     // fastest available implementation for this CPU and algorithm
  kOpenSsl,  // OpenSSL 3 libcrypto (EVP, key scheduled once; HMAC: its SHA functions): the
             // reference
  kNative,   // wireseal's own kernels (x86-64: AES-NI, VAES, SHA-NI), chosen per CPU
  kIpsecMb,  // Intel ipsec-mb direct API (x86-64 only, when the build found it)
};

// to_string names `backend` ("auto", "openssl", "native", "ipsec-mb").
std::string_view to_string(Backend backend) noexcept;

// Primitive names a family of keyed objects whose backend is chosen together.
enum class Primitive : std::uint8_t {
  kAesGcm,
  kAesCcm,
  kChaCha20Poly1305,
  kAesCtr,
  kAesCbc,
  kAesCmac,
  // HMAC, one family per hash (crypto::hmac_primitive): kNative serves SHA-1 and SHA-256 on
  // CPUs with hash instructions (x86: SHA-NI), every hash runs on kOpenSsl.
  kHmacSha1,
  kHmacSha224,
  kHmacSha256,
  kHmacSha384,
  kHmacSha512,
};

// is_available tells whether `backend` can serve `primitive` in this build on this CPU.
// kAuto is always available.
bool is_available(Primitive primitive, Backend backend) noexcept;

// resolve maps kAuto to the backend wireseal picks for `primitive` (by measurement, see
// docs/BENCHMARKING.md) and returns any other available backend unchanged. Throws
// std::invalid_argument if `backend` is not available.
Backend resolve(Primitive primitive, Backend backend);

// KernelReport says what this process runs on, for logs and `wireseal version`: the CPU
// features wireseal's kernels may use, what WIRESEAL_CPU_DISABLE (a comma-separated list of
// feature names tests use to force each kernel variant) asked for and turned off, and the
// kernel variant each feature-dependent family runs. Names are space-separated.
struct KernelReport {
  std::string cpu_features;   // e.g. "aesni pclmulqdq avx avx2 vaes vpclmulqdq sha_ni avx512f"
  std::string mask_spec;      // WIRESEAL_CPU_DISABLE as read ("" when unset)
  std::string mask_disabled;  // the features it turned off, with those built on them
  std::string mask_unknown;   // names in it that are not features, comma-separated (ignored)
  std::string native_aes;     // "vaes", "aes-ni" or "unavailable"
  std::string hmac;           // "sha-ni" or "openssl-sha"
  std::string hmac_batch;     // how HMAC batches use them: "sha-ni-x2", "avx512-x16", ...
  std::string ipsec_mb;       // ipsec-mb's manager ("avx512-t2", ...) or "unavailable"
  // kAuto's ChaCha20-Poly1305 on the native backend hands records longer than this many bytes
  // to ipsec-mb's kernel; 0 when it does not (another backend, or no ipsec-mb).
  std::size_t chacha20_poly1305_native_max = 0;
  // kAuto's AES-GCM runs batch jobs with texts up to this many bytes on the native
  // multi-message kernel (x86 VAES) and everything else, single messages included, on
  // ipsec-mb's; 0 when there is no such kernel.
  std::size_t aes_gcm_batch_max = 0;
  // kAuto's AES-CBC and HMAC-SHA1/SHA-256 protect a CBC record in one stitched kernel
  // (crypto::mac_then_encrypt / encrypt_then_mac: x86 AES-NI with SHA-NI), for records whose
  // MAC has a run of whole blocks in the body.
  bool cbc_hmac_stitched = false;
};

// kernel_report describes this process's CPU features and kernel choices (probed once).
KernelReport kernel_report();

}  // namespace wireseal::crypto
