#pragma once
// The CPU features wireseal's kernels dispatch on: internal to the library (the public API
// reports kernel choices through crypto::kernel_report(), never a CPU-shaped struct). One
// struct holds every architecture's features; the probe is per architecture (src/CMakeLists.txt
// picks the file) and sets only its own: cpu_features_x86.cc reads CPUID and XCR0 once on
// x86-64, cpu_features_arm.cc reads the kernel's AT_HWCAP/AT_HWCAP2 (getauxval) on aarch64 and
// 32-bit ARM, and cpu_features_generic.cc, anywhere else, reads every feature false. The mask
// and the names below are shared (cpu_features.cc).
//
// WIRESEAL_CPU_DISABLE, a comma-separated list of feature names read once with the probe, turns
// features off so a test can force each kernel variant on one machine. Disabling a feature also
// disables those built on it (avx -> avx2 -> vaes, vpclmulqdq, avx512f -> avx512bw, avx512vl; aesni
// -> vaes; pclmulqdq -> vpclmulqdq; neon -> aes, pmull, sha1, sha2). A mask only removes features,
// so nothing can ever use an instruction the CPU lacks; unknown names are reported on stderr and
// ignored.

#include <string>
#include <string_view>

namespace wireseal::cpu {

// The CPU's maker, where a kernel choice depends on how a core runs an instruction rather than
// on whether it has it (x86: SHA-NI's latency, see backend/x86/native_select.cc). Not a
// feature: the mask cannot change it.
enum class Vendor : unsigned char { kOther, kIntel, kAmd };

struct Features {
  Vendor vendor = Vendor::kOther;
  // x86-64
  bool aesni = false;
  bool pclmulqdq = false;
  bool avx = false;  // AVX with YMM state enabled by the OS: ipsec-mb's AVX architecture
  bool avx2 = false;
  bool vaes = false;
  bool vpclmulqdq = false;
  bool sha_ni = false;
  bool avx512f = false;
  bool avx512bw = false;  // byte and word instructions on ZMM (VPSHUFB for the SHA lanes)
  bool avx512vl = false;  // the AVX-512 forms (masks above all) on XMM and YMM registers
  // ARM (aarch64, and 32-bit ARM where AArch32 has the same instructions). On aarch64 NEON
  // (Advanced SIMD) is architectural; on armv7 the kernel reports it. The other four are the
  // ARMv8 Cryptography Extensions: AESE/AESD/AESMC/AESIMC, PMULL/PMULL2 (64x64 polynomial
  // multiplication), SHA1C/SHA1H/SHA1M/SHA1P/SHA1SU0/SHA1SU1, SHA256H/H2/SU0/SU1.
  bool neon = false;
  bool aes = false;
  bool pmull = false;
  bool sha1 = false;
  bool sha2 = false;
};

// features returns the features the kernels may use: probed, then masked (another
// architecture's are all false). Every backend and kernel choice reads it.
const Features& features() noexcept;

// FeatureMask is a parsed WIRESEAL_CPU_DISABLE value.
struct FeatureMask {
  std::string spec;     // the variable's value as read ("" when unset)
  Features disabled;    // what it turns off, closed over dependent features
  std::string unknown;  // names it gave that are not features, comma-separated ("" if none)
};

// parse_feature_mask parses a comma-separated list of feature names (blanks around names and
// empty items are ignored, names are case-sensitive).
FeatureMask parse_feature_mask(std::string_view spec);

// apply_feature_mask returns `features` without those `mask` disables.
Features apply_feature_mask(const Features& features, const FeatureMask& mask) noexcept;

// probed_features is what the CPU (x86: CPUID and the OS's XCR0; ARM: the kernel's hardware
// capabilities) reports, before the mask. Defined by the architecture's probe file.
const Features& probed_features() noexcept;

// feature_mask is the mask read from the environment once; an unknown name is reported on
// stderr when it is first read.
const FeatureMask& feature_mask() noexcept;

// feature_names lists the features set in `features`, space-separated, in probe order.
std::string feature_names(const Features& features);

}  // namespace wireseal::cpu
