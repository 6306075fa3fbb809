// The x86-64 CPU feature probe: CPUID leaves 1 and 7 and the OS's XCR0 (YMM/ZMM state), read
// once. Built on x86-64 only (src/CMakeLists.txt); the mask is applied by cpu_features.cc.
#include <cpuid.h>

#include "common/cpu_features.h"

namespace wireseal::cpu {
namespace {

Features probe() noexcept {
  Features f;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) != 0) {
    // The vendor string is EBX, EDX, ECX: "GenuineIntel", "AuthenticAMD" (and "HygonGenuine",
    // Zen cores under another name).
    constexpr unsigned kGenu = 0x756e6547, kAuth = 0x68747541, kHygo = 0x6f677948;
    f.vendor = ebx == kGenu                     ? Vendor::kIntel
               : (ebx == kAuth || ebx == kHygo) ? Vendor::kAmd
                                                : Vendor::kOther;
  }
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) {
    return f;
  }
  f.aesni = (ecx & bit_AES) != 0;
  f.pclmulqdq = (ecx & bit_PCLMUL) != 0;
  const bool osxsave = (ecx & bit_OSXSAVE) != 0;
  bool ymm_enabled = false;
  bool zmm_enabled = false;
  if (osxsave) {
    unsigned xcr0_lo = 0, xcr0_hi = 0;
    __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    ymm_enabled = (xcr0_lo & 0x6) == 0x6;
    zmm_enabled = (xcr0_lo & 0xe6) == 0xe6;
  }
  f.avx = ymm_enabled && (ecx & bit_AVX) != 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0) {
    f.avx2 = ymm_enabled && (ebx & bit_AVX2) != 0;
    f.sha_ni = (ebx & bit_SHA) != 0;
    f.vaes = ymm_enabled && (ecx & bit_VAES) != 0;
    f.vpclmulqdq = ymm_enabled && (ecx & bit_VPCLMULQDQ) != 0;
    f.avx512f = zmm_enabled && (ebx & bit_AVX512F) != 0;
    f.avx512bw = f.avx512f && (ebx & bit_AVX512BW) != 0;
    f.avx512vl = f.avx512f && (ebx & bit_AVX512VL) != 0;
  }
  return f;
}

}  // namespace

const Features& probed_features() noexcept {
  static const Features probed = probe();
  return probed;
}

}  // namespace wireseal::cpu
