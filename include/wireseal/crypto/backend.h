#pragma once
// Backend selection for keyed crypto objects.
//
// Every keyed object picks one implementation when it is constructed and keeps it for its
// lifetime: there is no per-message dispatch on CPU features. kAuto picks the fastest
// implementation measured on this CPU (see docs/BENCHMARKING.md); tests force each backend
// in turn and differential-test it against OpenSSL.

#include <cstdint>
#include <string_view>

namespace wireseal::crypto {

enum class Backend : std::uint8_t {
  kAuto,     // fastest available implementation for this CPU and algorithm
  kOpenSsl,  // OpenSSL 3 libcrypto EVP, used carefully (key scheduled once): the reference
  kNative,   // wireseal's own x86-64 kernels (AES-NI, PCLMULQDQ, VAES), runtime-dispatched
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
};

// is_available tells whether `backend` can serve `primitive` in this build on this CPU.
// kAuto is always available.
bool is_available(Primitive primitive, Backend backend) noexcept;

// resolve maps kAuto to the backend wireseal picks for `primitive` (by measurement, see
// docs/BENCHMARKING.md) and returns any other available backend unchanged. Throws
// std::invalid_argument if `backend` is not available.
Backend resolve(Primitive primitive, Backend backend);

// CpuFeatures is what the running CPU offers, probed once with CPUID, minus what the
// environment variable WIRESEAL_CPU_DISABLE (a comma-separated list of these field names,
// read once with the probe) turns off so a test can force each kernel variant on one machine.
// Disabling a feature also disables those built on it (avx -> avx2 -> vaes, vpclmulqdq,
// avx512f; aesni -> vaes; pclmulqdq -> vpclmulqdq). A mask only removes features, so nothing
// can ever use an instruction the CPU lacks; unknown names are reported on stderr and ignored.
struct CpuFeatures {
  bool aesni = false;
  bool pclmulqdq = false;
  bool avx = false;  // AVX with YMM state enabled by the OS: ipsec-mb's AVX architecture
  bool avx2 = false;
  bool vaes = false;
  bool vpclmulqdq = false;
  bool sha_ni = false;
  bool avx512f = false;
};

// cpu_features returns the features wireseal uses on this CPU: probed, then masked (all false
// on non-x86-64). Every backend and kernel choice reads it.
const CpuFeatures& cpu_features() noexcept;

}  // namespace wireseal::crypto
