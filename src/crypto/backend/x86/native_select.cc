// The native x86-64 backend's answers to backend/native.h, given the CPU. Compiled without ISA
// flags: it runs before we know AES-NI or SHA-NI exists.
#include "backend/native.h"
#include "backend/x86/sha1_ni.h"
#include "backend/x86/sha256_ni.h"
#include "common/cpu_features.h"

namespace wireseal::crypto::detail {

bool native_supports(Primitive primitive) noexcept {
  const cpu::X86Features& cpu = cpu::x86_features();
  switch (primitive) {
    case Primitive::kAesCcm:
    case Primitive::kAesCtr:
    case Primitive::kAesCbc:
    case Primitive::kAesCmac:
      return cpu.aesni;
    case Primitive::kHmacSha1:
      return native_sha_kernels().sha1 != nullptr;
    case Primitive::kHmacSha256:
      return native_sha_kernels().sha256 != nullptr;
    default:
      return false;
  }
}

// The VAES kernels also use AVX2 instructions (vaes_*.cc are built with -mavx2).
bool native_uses_vaes() noexcept { return cpu::x86_features().vaes && cpu::x86_features().avx2; }

namespace {

ShaKernels choose_sha_kernels() noexcept {
  ShaKernels k;
  if (cpu::x86_features().sha_ni) {  // sha*_ni.cc are built with -msha -msse4.1
    k.sha1 = sha1_compress_ni;
    k.sha1_x2 = sha1_compress_ni_x2;
    k.sha256 = sha256_compress_ni;
    k.sha256_x2 = sha256_compress_ni_x2;
    k.name = "sha-ni";
  }
  return k;
}

}  // namespace

const ShaKernels& native_sha_kernels() noexcept {
  static const ShaKernels kernels = choose_sha_kernels();
  return kernels;
}

}  // namespace wireseal::crypto::detail
