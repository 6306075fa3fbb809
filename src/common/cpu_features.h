#pragma once
// The CPU feature probe's internals: the features before the WIRESEAL_CPU_DISABLE mask, the
// mask itself, and the name table both share. For the crypto module's dispatch reports, the
// tests that check a mask took effect, and `wireseal version`.

#include <string>
#include <string_view>

#include "wireseal/crypto/backend.h"

namespace wireseal::crypto::detail {

// CpuFeatureMask is a parsed WIRESEAL_CPU_DISABLE value.
struct CpuFeatureMask {
  std::string spec;      // the variable's value as read ("" when unset)
  CpuFeatures disabled;  // what it turns off, closed over dependent features
  std::string unknown;   // names it gave that are not features, comma-separated ("" if none)
};

// parse_cpu_feature_mask parses a comma-separated list of feature names (blanks around names
// and empty items are ignored, names are case-sensitive).
CpuFeatureMask parse_cpu_feature_mask(std::string_view spec);

// apply_cpu_feature_mask returns `features` without those `mask` disables.
CpuFeatures apply_cpu_feature_mask(const CpuFeatures& features,
                                   const CpuFeatureMask& mask) noexcept;

// probed_cpu_features is what CPUID (and the OS's XCR0) report, before the mask.
const CpuFeatures& probed_cpu_features() noexcept;

// cpu_feature_mask is the mask read from the environment once; an unknown name is reported on
// stderr when it is first read.
const CpuFeatureMask& cpu_feature_mask() noexcept;

// cpu_feature_names lists the features set in `features`, space-separated, in probe order.
std::string cpu_feature_names(const CpuFeatures& features);

}  // namespace wireseal::crypto::detail
