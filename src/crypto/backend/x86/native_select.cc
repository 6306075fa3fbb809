// The native x86-64 backend's answers to backend/native.h, given the CPU: what it serves, its
// factories (over the kernel files' objects, aesni_objects.h) and the SHA kernel table.
// Compiled without ISA flags: it runs before we know AES-NI or SHA-NI exists.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "backend/native.h"
#include "backend/x86/aesni_objects.h"
#include "backend/x86/sha1_ni.h"
#include "backend/x86/sha256_ni.h"
#include "backend/x86/sha_avx512.h"
#include "backend/x86/vaes512_cbc.h"
#include "common/cpu_features.h"

namespace wireseal::crypto::detail {

namespace {

// gcm_kernel_usable: the CPU has what gcm_vaes.cc is built for, and ipsec-mb serves the
// messages too long for it (aes_gcm.cc).
bool gcm_kernel_usable(const cpu::Features& cpu) noexcept {
  return cpu.aesni && cpu.pclmulqdq && cpu.vaes && cpu.vpclmulqdq && cpu.avx512f && cpu.avx512bw &&
         cpu.avx512vl && ipsecmb_supports(Primitive::kAesGcm);
}

bool is_gcm(AeadAlgorithm algorithm) noexcept {
  return algorithm == AeadAlgorithm::kAes128Gcm || algorithm == AeadAlgorithm::kAes192Gcm ||
         algorithm == AeadAlgorithm::kAes256Gcm;
}

}  // namespace

bool native_supports(Primitive primitive) noexcept {
  const cpu::Features& cpu = cpu::features();
  switch (primitive) {
    case Primitive::kAesGcm:
      return gcm_kernel_usable(cpu);
    case Primitive::kAesCcm:
    case Primitive::kAesCtr:
    case Primitive::kAesCbc:
    case Primitive::kAesCmac:
      return cpu.aesni;
    case Primitive::kChaCha20Poly1305:
      return cpu.avx512f && cpu.avx512bw;  // chacha20_avx512.cc: -mavx512f -mavx512bw
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
  if (algorithm == AeadAlgorithm::kChaCha20Poly1305) {
    return make_native_chacha20_poly1305(key);
  }
  if (is_gcm(algorithm)) {
    return make_native_aes_gcm(key, tag_len, make_ipsecmb_aead(algorithm, key, tag_len, nonce_len));
  }
  if (algorithm != AeadAlgorithm::kAes128Ccm && algorithm != AeadAlgorithm::kAes192Ccm &&
      algorithm != AeadAlgorithm::kAes256Ccm) {
    throw std::invalid_argument(
        "wireseal: the native backend implements AES-GCM, AES-CCM and ChaCha20-Poly1305 only "
        "(AEADs)");
  }
  return make_aesni_ccm(key, tag_len, nonce_len);
}

std::unique_ptr<AesModeImpl> make_native_aes_mode(AesMode mode, Bytes key) {
  return make_aesni_mode(mode, key);
}

std::unique_ptr<CmacImpl> make_native_cmac(Bytes key) { return make_aesni_cmac(key); }

std::size_t native_gcm_batch_max() noexcept {
  return native_supports(Primitive::kAesGcm) ? kNativeGcmBatchMax : 0;
}

// The VAES kernels also use AVX2 instructions (vaes_*.cc are built with -mavx2).
bool native_uses_vaes() noexcept { return cpu::features().vaes && cpu::features().avx2; }
const char* native_aes_name() noexcept { return native_uses_vaes() ? "vaes" : "aes-ni"; }
bool cbc_decrypt_uses_vaes512() noexcept { return native_uses_vaes() && cpu::features().avx512f; }

bool native_cbc_stitches_sha() noexcept { return cpu::features().sha_ni; }

namespace {

// default_lanes picks how HMAC batches use the kernels on this core when nothing overrides it,
// from CPUID's vendor and features (docs/DESIGN.md, "Multi-buffer HMAC"):
// - AMD: SHA1RNDS4 and SHA256RNDS2 have long latency and high throughput, so interleaved SHA-NI
//   chains run almost as many messages at once as there are chains. Measured on Zen 5, which
//   also has AVX-512: pairs matched the sixteen lanes on SHA-1 batches of sixteen and ran
//   SHA-256 batches of eight in half their time, so AMD keeps the pairs.
// - Intel with AVX-512F and AVX-512BW: interleaving SHA-NI chains measured slower than one
//   message at a time on a Xeon (SHA-1 batches lost to single calls), so batches go to the
//   sixteen lanes when they fill enough of them and run one at a time otherwise.
// - Any other core: one at a time, so a batch never loses to single calls.
HmacLanes default_lanes(const cpu::Features& cpu) noexcept {
  if (cpu.vendor == cpu::Vendor::kAmd) {
    return HmacLanes::kPairs;
  }
  if (cpu.vendor == cpu::Vendor::kIntel && cpu.avx512f && cpu.avx512bw) {
    return HmacLanes::kSixteen;
  }
  return HmacLanes::kOneByOne;
}

// WIRESEAL_HMAC_LANES=one|x2|x16 overrides the choice (docs/DESIGN.md); x16 is honoured only
// where the CPU has AVX-512F and AVX-512BW. Anything else keeps the default, with a warning.
HmacLanes chosen_lanes(const cpu::Features& cpu) noexcept {
  const HmacLanes fallback = default_lanes(cpu);
  const char* value = std::getenv("WIRESEAL_HMAC_LANES");
  if (value == nullptr || *value == '\0') {
    return fallback;
  }
  const std::string_view v(value);
  if (v == "one") {
    return HmacLanes::kOneByOne;
  }
  if (v == "x2") {
    return HmacLanes::kPairs;
  }
  if (v == "x16" && cpu.avx512f && cpu.avx512bw) {
    return HmacLanes::kSixteen;
  }
  std::fprintf(stderr,
               "wireseal: WIRESEAL_HMAC_LANES=%s is not one, x2 or x16 (x16 needs "
               "AVX-512F and AVX-512BW); keeping the default\n",
               value);
  return fallback;
}

const char* lanes_name(HmacLanes lanes) noexcept {
  switch (lanes) {
    case HmacLanes::kOneByOne:
      return "sha-ni-x1";
    case HmacLanes::kPairs:
      return "sha-ni-x2";
    case HmacLanes::kSixteen:
      return "avx512-x16";
  }
  return nullptr;
}

ShaKernels choose_sha_kernels() noexcept {
  ShaKernels k;
  const cpu::Features& cpu = cpu::features();
  if (!cpu.sha_ni) {
    return k;  // no single-lane kernel: HMAC is OpenSSL's, batches included
  }
  k.sha1 = sha1_compress_ni;  // sha*_ni.cc are built with -msha -msse4.1
  k.sha1_keep = sha1_compress_ni_keep;
  k.sha1_x2 = sha1_compress_ni_x2;
  k.sha256 = sha256_compress_ni;
  k.sha256_keep = sha256_compress_ni_keep;
  k.sha256_x2 = sha256_compress_ni_x2;
  k.name = "sha-ni";
  k.lanes = chosen_lanes(cpu);
  if (k.lanes == HmacLanes::kSixteen) {  // sha_avx512.cc is built with -mavx512f -mavx512bw
    k.sha1_x16 = sha1_compress_avx512_x16;
    k.sha256_x16 = sha256_compress_avx512_x16;
  }
  k.lanes_name = lanes_name(k.lanes);
  return k;
}

}  // namespace

const ShaKernels& native_sha_kernels() noexcept {
  static const ShaKernels kernels = choose_sha_kernels();
  return kernels;
}

}  // namespace wireseal::crypto::detail
