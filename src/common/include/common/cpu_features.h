#pragma once
// The CPU features wireseal's kernels dispatch on: internal to the library (the public API
// reports kernel choices through crypto::kernel_report(), never a CPU-shaped struct), one
// struct per architecture. The probe is per architecture too (src/CMakeLists.txt picks the
// file): cpu_features_x86.cc reads CPUID and XCR0 once on x86-64; cpu_features_generic.cc,
// on any other architecture, reads every x86 feature false. The ARM probe arrives with the ARM
// kernels. The mask and the names below are shared (cpu_features.cc).
//
// WIRESEAL_CPU_DISABLE, a comma-separated list of feature names read once with the probe, turns
// features off so a test can force each kernel variant on one machine. Disabling a feature also
// disables those built on it (avx -> avx2 -> vaes, vpclmulqdq, avx512f; aesni -> vaes;
// pclmulqdq -> vpclmulqdq). A mask only removes features, so nothing can ever use an
// instruction the CPU lacks; unknown names are reported on stderr and ignored.

#include <string>
#include <string_view>

namespace wireseal::cpu {

struct X86Features {
  bool aesni = false;
  bool pclmulqdq = false;
  bool avx = false;  // AVX with YMM state enabled by the OS: ipsec-mb's AVX architecture
  bool avx2 = false;
  bool vaes = false;
  bool vpclmulqdq = false;
  bool sha_ni = false;
  bool avx512f = false;
};

// x86_features returns the features the kernels may use: probed, then masked (all false on
// other architectures). Every backend and kernel choice reads it.
const X86Features& x86_features() noexcept;

// FeatureMask is a parsed WIRESEAL_CPU_DISABLE value.
struct FeatureMask {
  std::string spec;      // the variable's value as read ("" when unset)
  X86Features disabled;  // what it turns off, closed over dependent features
  std::string unknown;   // names it gave that are not features, comma-separated ("" if none)
};

// parse_feature_mask parses a comma-separated list of feature names (blanks around names and
// empty items are ignored, names are case-sensitive).
FeatureMask parse_feature_mask(std::string_view spec);

// apply_feature_mask returns `features` without those `mask` disables.
X86Features apply_feature_mask(const X86Features& features, const FeatureMask& mask) noexcept;

// probed_x86_features is what CPUID (and the OS's XCR0) report, before the mask (all false
// off x86-64). Defined by the architecture's probe file.
const X86Features& probed_x86_features() noexcept;

// feature_mask is the mask read from the environment once; an unknown name is reported on
// stderr when it is first read.
const FeatureMask& feature_mask() noexcept;

// feature_names lists the features set in `features`, space-separated, in probe order.
std::string feature_names(const X86Features& features);

}  // namespace wireseal::cpu
