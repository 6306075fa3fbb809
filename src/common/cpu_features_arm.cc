// The ARM CPU feature probe: the hardware capabilities the kernel passes in the auxiliary
// vector (getauxval), read once. User space cannot read the ID registers on 32-bit ARM, and
// on aarch64 the kernel's view is what it has enabled, so HWCAP is the one honest source on
// both. Built on aarch64 and 32-bit ARM (src/CMakeLists.txt); cpu_features.cc applies the mask.
#include <sys/auxv.h>

#include "common/cpu_features.h"

// The bits, from the kernel's uapi <asm/hwcap.h>, spelled out so that the file builds with any
// libc headers: aarch64 AT_HWCAP, and 32-bit ARM AT_HWCAP (NEON) and AT_HWCAP2 (crypto).
namespace {
#if defined(__aarch64__)
constexpr unsigned long kHwcapAsimd = 1UL << 1;
constexpr unsigned long kHwcapAes = 1UL << 3;
constexpr unsigned long kHwcapPmull = 1UL << 4;
constexpr unsigned long kHwcapSha1 = 1UL << 5;
constexpr unsigned long kHwcapSha2 = 1UL << 6;
#else
constexpr unsigned long kHwcapNeon = 1UL << 12;
constexpr unsigned long kHwcap2Aes = 1UL << 0;
constexpr unsigned long kHwcap2Pmull = 1UL << 1;
constexpr unsigned long kHwcap2Sha1 = 1UL << 2;
constexpr unsigned long kHwcap2Sha2 = 1UL << 3;
#endif
}  // namespace

namespace wireseal::cpu {
namespace {

Features probe() noexcept {
  Features f;
#if defined(__aarch64__)
  const unsigned long hwcap = getauxval(AT_HWCAP);
  f.neon = (hwcap & kHwcapAsimd) != 0;
  f.aes = f.neon && (hwcap & kHwcapAes) != 0;
  f.pmull = f.neon && (hwcap & kHwcapPmull) != 0;
  f.sha1 = f.neon && (hwcap & kHwcapSha1) != 0;
  f.sha2 = f.neon && (hwcap & kHwcapSha2) != 0;
#else
  const unsigned long hwcap2 = getauxval(AT_HWCAP2);
  f.neon = (getauxval(AT_HWCAP) & kHwcapNeon) != 0;
  f.aes = f.neon && (hwcap2 & kHwcap2Aes) != 0;
  f.pmull = f.neon && (hwcap2 & kHwcap2Pmull) != 0;
  f.sha1 = f.neon && (hwcap2 & kHwcap2Sha1) != 0;
  f.sha2 = f.neon && (hwcap2 & kHwcap2Sha2) != 0;
#endif
  return f;
}

}  // namespace

const Features& probed_features() noexcept {
  static const Features probed = probe();
  return probed;
}

}  // namespace wireseal::cpu
