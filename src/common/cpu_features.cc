// CPU feature probe (CPUID), run once, then narrowed by the WIRESEAL_CPU_DISABLE mask.
#include "common/cpu_features.h"

#include <cstdio>
#include <cstdlib>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace wireseal::crypto {
namespace detail {
namespace {

// The name of each feature, in WIRESEAL_CPU_DISABLE and in reports, and its field.
struct FeatureName {
  std::string_view name;
  bool CpuFeatures::*field;
};
constexpr FeatureName kFeatures[] = {
    {"aesni", &CpuFeatures::aesni},   {"pclmulqdq", &CpuFeatures::pclmulqdq},
    {"avx", &CpuFeatures::avx},       {"avx2", &CpuFeatures::avx2},
    {"vaes", &CpuFeatures::vaes},     {"vpclmulqdq", &CpuFeatures::vpclmulqdq},
    {"sha_ni", &CpuFeatures::sha_ni}, {"avx512f", &CpuFeatures::avx512f},
};

// Extensions that no CPU offers without their base: disabling the base disables them too, so
// a masked feature set is always one a real CPU could report and no dispatch site has to
// restate these rules.
struct Dependency {
  bool CpuFeatures::*base;
  bool CpuFeatures::*extension;
};
constexpr Dependency kDependencies[] = {
    {&CpuFeatures::avx, &CpuFeatures::avx2},
    {&CpuFeatures::avx2, &CpuFeatures::vaes},
    {&CpuFeatures::avx2, &CpuFeatures::vpclmulqdq},
    {&CpuFeatures::avx2, &CpuFeatures::avx512f},
    {&CpuFeatures::aesni, &CpuFeatures::vaes},
    {&CpuFeatures::pclmulqdq, &CpuFeatures::vpclmulqdq},
};

void close_over_dependents(CpuFeatures& disabled) noexcept {
  for (bool changed = true; changed;) {
    changed = false;
    for (const Dependency& d : kDependencies) {
      if (disabled.*(d.base) && !(disabled.*(d.extension))) {
        disabled.*(d.extension) = true;
        changed = true;
      }
    }
  }
}

std::string_view trim(std::string_view s) noexcept {
  const std::size_t first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// disable_by_name sets the field called `name` in `disabled`; false if there is none.
bool disable_by_name(std::string_view name, CpuFeatures& disabled) noexcept {
  for (const FeatureName& f : kFeatures) {
    if (f.name == name) {
      disabled.*(f.field) = true;
      return true;
    }
  }
  return false;
}

CpuFeatures probe() noexcept {
  CpuFeatures f;
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
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
  }
#endif
  return f;
}

// read_mask parses WIRESEAL_CPU_DISABLE. Unknown names are reported, not fatal: the probe runs
// in every process that links wireseal, and a stale or misspelt variable there must neither
// abort it nor make key set-up throw. Ignoring a name only leaves a real feature in use; the
// CPU-variant tests fail on any unknown name, so CI cannot mistake a typo for a variant.
CpuFeatureMask read_mask() {
  const char* value = std::getenv("WIRESEAL_CPU_DISABLE");
  CpuFeatureMask mask = parse_cpu_feature_mask(value == nullptr ? "" : value);
  if (!mask.unknown.empty()) {
    CpuFeatures all;
    for (const FeatureName& f : kFeatures) {
      all.*(f.field) = true;
    }
    std::fprintf(stderr,
                 "wireseal: WIRESEAL_CPU_DISABLE: ignoring unknown feature(s) %s (known: %s)\n",
                 mask.unknown.c_str(), cpu_feature_names(all).c_str());
  }
  return mask;
}

}  // namespace

CpuFeatureMask parse_cpu_feature_mask(std::string_view spec) {
  CpuFeatureMask mask;
  mask.spec = std::string(spec);
  while (!spec.empty()) {
    const std::size_t comma = spec.find(',');
    const std::string_view name = trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    if (!name.empty() && !disable_by_name(name, mask.disabled)) {
      mask.unknown += mask.unknown.empty() ? "" : ",";
      mask.unknown += name;
    }
  }
  close_over_dependents(mask.disabled);
  return mask;
}

CpuFeatures apply_cpu_feature_mask(const CpuFeatures& features,
                                   const CpuFeatureMask& mask) noexcept {
  CpuFeatures out = features;
  for (const FeatureName& f : kFeatures) {
    out.*(f.field) = out.*(f.field) && !(mask.disabled.*(f.field));
  }
  return out;
}

const CpuFeatures& probed_cpu_features() noexcept {
  static const CpuFeatures features = probe();
  return features;
}

const CpuFeatureMask& cpu_feature_mask() noexcept {
  static const CpuFeatureMask mask = read_mask();
  return mask;
}

std::string cpu_feature_names(const CpuFeatures& features) {
  std::string out;
  for (const FeatureName& f : kFeatures) {
    if (features.*(f.field)) {
      out += out.empty() ? "" : " ";
      out += f.name;
    }
  }
  return out;
}

}  // namespace detail

const CpuFeatures& cpu_features() noexcept {
  static const CpuFeatures features =
      detail::apply_cpu_feature_mask(detail::probed_cpu_features(), detail::cpu_feature_mask());
  return features;
}

}  // namespace wireseal::crypto
