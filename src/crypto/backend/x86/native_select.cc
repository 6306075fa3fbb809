// The native x86-64 backend's answers to backend/native.h, given the CPU: what it serves, its
// factories (over the kernel files' objects, aesni_objects.h) and the SHA kernel table.
// Compiled without ISA flags: it runs before we know AES-NI or SHA-NI exists.
#include <stdexcept>

#include "backend/native.h"
#include "backend/x86/aesni_objects.h"
#include "backend/x86/sha1_ni.h"
#include "backend/x86/sha256_ni.h"
#include "common/cpu_features.h"

namespace wireseal::crypto::detail {

bool native_supports(Primitive primitive) noexcept {
  const cpu::Features& cpu = cpu::features();
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

std::unique_ptr<AeadImpl> make_native_aead(AeadAlgorithm algorithm, Bytes key, std::size_t tag_len,
                                           std::size_t nonce_len) {
  if (algorithm != AeadAlgorithm::kAes128Ccm && algorithm != AeadAlgorithm::kAes192Ccm &&
      algorithm != AeadAlgorithm::kAes256Ccm) {
    throw std::invalid_argument("wireseal: the native backend implements AES-CCM only (AEADs)");
  }
  return make_aesni_ccm(key, tag_len, nonce_len);
}

std::unique_ptr<AesModeImpl> make_native_aes_mode(AesMode mode, Bytes key) {
  return make_aesni_mode(mode, key);
}

std::unique_ptr<CmacImpl> make_native_cmac(Bytes key) { return make_aesni_cmac(key); }

// The VAES kernels also use AVX2 instructions (vaes_*.cc are built with -mavx2).
bool native_uses_vaes() noexcept { return cpu::features().vaes && cpu::features().avx2; }
const char* native_aes_name() noexcept { return native_uses_vaes() ? "vaes" : "aes-ni"; }

namespace {

ShaKernels choose_sha_kernels() noexcept {
  ShaKernels k;
  if (cpu::features().sha_ni) {  // sha*_ni.cc are built with -msha -msse4.1
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
