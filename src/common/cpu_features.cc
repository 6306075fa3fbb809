// The architecture-independent half of the CPU features: the WIRESEAL_CPU_DISABLE mask (its
// parsing, the feature names and their dependencies) and the masked features every dispatch
// reads. The probe itself, probed_features(), is per architecture and chosen by
// src/CMakeLists.txt: cpu_features_x86.cc (CPUID, XCR0) on x86-64, cpu_features_arm.cc
// (getauxval) on ARM, cpu_features_generic.cc (nothing) elsewhere.
#include "common/cpu_features.h"

#include <cstdio>
#include <cstdlib>

namespace wireseal::cpu {
namespace {

// The name of each feature, in WIRESEAL_CPU_DISABLE and in reports, and its field.
struct FeatureName {
  std::string_view name;
  bool Features::*field;
};
constexpr FeatureName kFeatures[] = {
    {"aesni", &Features::aesni},       {"pclmulqdq", &Features::pclmulqdq},
    {"avx", &Features::avx},           {"avx2", &Features::avx2},
    {"vaes", &Features::vaes},         {"vpclmulqdq", &Features::vpclmulqdq},
    {"sha_ni", &Features::sha_ni},     {"avx512f", &Features::avx512f},
    {"avx512bw", &Features::avx512bw}, {"avx512vl", &Features::avx512vl},
    {"neon", &Features::neon},         {"aes", &Features::aes},
    {"pmull", &Features::pmull},       {"sha1", &Features::sha1},
    {"sha2", &Features::sha2},
};

// Extensions that no CPU offers without their base: disabling the base disables them too, so
// a masked feature set is always one a real CPU could report and no dispatch site has to
// restate these rules.
struct Dependency {
  bool Features::*base;
  bool Features::*extension;
};
constexpr Dependency kDependencies[] = {
    {&Features::avx, &Features::avx2},         {&Features::avx2, &Features::vaes},
    {&Features::avx2, &Features::vpclmulqdq},  {&Features::avx2, &Features::avx512f},
    {&Features::avx512f, &Features::avx512bw}, {&Features::avx512f, &Features::avx512vl},
    {&Features::aesni, &Features::vaes},       {&Features::pclmulqdq, &Features::vpclmulqdq},
    {&Features::neon, &Features::aes},         {&Features::neon, &Features::pmull},
    {&Features::neon, &Features::sha1},        {&Features::neon, &Features::sha2},
};

void close_over_dependents(Features& disabled) noexcept {
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
bool disable_by_name(std::string_view name, Features& disabled) noexcept {
  for (const FeatureName& f : kFeatures) {
    if (f.name == name) {
      disabled.*(f.field) = true;
      return true;
    }
  }
  return false;
}

// read_mask parses WIRESEAL_CPU_DISABLE. Unknown names are reported, not fatal: the probe runs
// in every process that links wireseal, and a stale or misspelt variable there must neither
// abort it nor make key set-up throw. Ignoring a name only leaves a real feature in use; the
// CPU-variant tests fail on any unknown name, so CI cannot mistake a typo for a variant.
FeatureMask read_mask() {
  const char* value = std::getenv("WIRESEAL_CPU_DISABLE");
  FeatureMask mask = parse_feature_mask(value == nullptr ? "" : value);
  if (!mask.unknown.empty()) {
    Features all;
    for (const FeatureName& f : kFeatures) {
      all.*(f.field) = true;
    }
    std::fprintf(stderr,
                 "wireseal: WIRESEAL_CPU_DISABLE: ignoring unknown feature(s) %s (known: %s)\n",
                 mask.unknown.c_str(), feature_names(all).c_str());
  }
  return mask;
}

}  // namespace

FeatureMask parse_feature_mask(std::string_view spec) {
  FeatureMask mask;
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

Features apply_feature_mask(const Features& features, const FeatureMask& mask) noexcept {
  Features out = features;
  for (const FeatureName& f : kFeatures) {
    out.*(f.field) = out.*(f.field) && !(mask.disabled.*(f.field));
  }
  return out;
}

const FeatureMask& feature_mask() noexcept {
  static const FeatureMask mask = read_mask();
  return mask;
}

std::string feature_names(const Features& features) {
  std::string out;
  for (const FeatureName& f : kFeatures) {
    if (features.*(f.field)) {
      out += out.empty() ? "" : " ";
      out += f.name;
    }
  }
  return out;
}

const Features& features() noexcept {
  static const Features masked = apply_feature_mask(probed_features(), feature_mask());
  return masked;
}

}  // namespace wireseal::cpu
