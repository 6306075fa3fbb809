// The native ARM backend's answers to backend/native.h, given the CPU (aarch64, and 32-bit ARM
// whose cores have the AArch32 crypto extensions): what it serves, its factories (over the
// kernel files' objects, arm_objects.h) and the SHA kernel table. Compiled for the target's
// baseline: it runs before we know the crypto extensions exist.
//
// AES-GCM is served where AES and PMULL are (aarch64, and 32-bit ARM with the crypto extensions).
// AES-CTR is served on every NEON core: with the AES instructions where they exist, otherwise
// with the bit-sliced AES (portable/aes_bitsliced.cc), which unlike OpenSSL's AES on those
// cores is constant time at every length.
// AES-CCM is served wherever the AES instructions are. ChaCha20-Poly1305 has no ARM kernel, so
// it is not served here and goes to OpenSSL (whose own ARMv8 and NEON code it then runs).
#include <stdexcept>

#include "backend/arm/arm_objects.h"
#include "backend/arm/sha_ce.h"
#include "backend/native.h"
#include "backend/portable/aes_bitsliced.h"
#include "common/cpu_features.h"

namespace wireseal::crypto::detail {

bool native_supports(Primitive primitive) noexcept {
  switch (primitive) {
    case Primitive::kAesGcm:
      return cpu::features().aes && cpu::features().pmull;
    case Primitive::kAesCtr:
      return cpu::features().aes || cpu::features().neon;
    case Primitive::kAesCbc:
    case Primitive::kAesCmac:
    case Primitive::kAesCcm:
      return cpu::features().aes;
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
  switch (algorithm) {
    case AeadAlgorithm::kAes128Ccm:
    case AeadAlgorithm::kAes192Ccm:
    case AeadAlgorithm::kAes256Ccm:
      return make_ce_ccm(key, tag_len, nonce_len);
    case AeadAlgorithm::kAes128Gcm:
    case AeadAlgorithm::kAes192Gcm:
    case AeadAlgorithm::kAes256Gcm:
      return make_ce_gcm(key, tag_len);
    default:
      throw std::invalid_argument(
          "wireseal: the native ARM backend implements AES-CCM and AES-GCM only");
  }
}

std::unique_ptr<AesModeImpl> make_native_aes_mode(AesMode mode, Bytes key) {
  if (cpu::features().aes) {
    return make_ce_aes_mode(mode, key);
  }
  if (mode != AesMode::kCtr) {
    throw std::invalid_argument("wireseal: AES-CBC needs the ARMv8 AES instructions natively");
  }
  return make_bitsliced_aes_ctr(key);
}

std::unique_ptr<CmacImpl> make_native_cmac(Bytes key) { return make_ce_cmac(key); }

bool native_uses_vaes() noexcept { return false; }

bool native_cbc_stitches_sha() noexcept { return false; }
std::size_t native_gcm_batch_max() noexcept { return 0; }
const char* native_aes_name() noexcept {
  return cpu::features().aes ? "armv8-ce" : "neon-bitsliced";
}

namespace {

ShaKernels choose_sha_kernels() noexcept {
  ShaKernels k;
  const cpu::Features& cpu = cpu::features();
  if (cpu.sha1) {
    k.sha1 = sha1_compress_ce;
    k.sha1_x2 = sha1_compress_ce_x2;
  }
  if (cpu.sha2) {
    k.sha256 = sha256_compress_ce;
    k.sha256_x2 = sha256_compress_ce_x2;
  }
  if (cpu.sha1 || cpu.sha2) {
    k.name = "armv8-ce";
    k.lanes = HmacLanes::kPairs;
    k.lanes_name = "armv8-ce-x2";
  }
  return k;
}

}  // namespace

const ShaKernels& native_sha_kernels() noexcept {
  static const ShaKernels kernels = choose_sha_kernels();
  return kernels;
}

}  // namespace wireseal::crypto::detail
