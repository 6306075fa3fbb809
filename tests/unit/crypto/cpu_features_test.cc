// The CPU feature mask (WIRESEAL_CPU_DISABLE): its parser, and the checks that make a ctest CPU
// variant trustworthy. ctest runs this binary in the default run and under every variant
// (tests/CMakeLists.txt) with WIRESEAL_TEST_CPU_VARIANT=<name>:<features>, the features that
// must then be off spelled out independently of the library's own dependency rules. The
// CpuVariant tests fail if the mask did not reach the features, the backends' availability or
// the kernel choices, so a broken mask cannot quietly test the full CPU's paths again; they
// report what the variant runs, and whether this CPU has what the variant takes away.
#include "common/cpu_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/backend/interfaces.h"
#include "crypto/backend/native.h"
#include "crypto_test_util.h"
#include "wireseal/crypto/backend.h"

namespace wireseal::test {
namespace {

using cpu::apply_feature_mask;
using cpu::feature_names;
using cpu::Features;
using cpu::parse_feature_mask;
using crypto::Backend;
using crypto::Primitive;

constexpr Primitive kPrimitives[] = {
    Primitive::kAesGcm,     Primitive::kAesCcm,     Primitive::kChaCha20Poly1305,
    Primitive::kAesCtr,     Primitive::kAesCbc,     Primitive::kAesCmac,
    Primitive::kHmacSha1,   Primitive::kHmacSha224, Primitive::kHmacSha256,
    Primitive::kHmacSha384, Primitive::kHmacSha512};

constexpr bool Features::*kFields[] = {
    &Features::aesni,    &Features::pclmulqdq,  &Features::avx,    &Features::avx2,
    &Features::vaes,     &Features::vpclmulqdq, &Features::sha_ni, &Features::avx512f,
    &Features::avx512bw, &Features::avx512vl,   &Features::neon,   &Features::aes,
    &Features::pmull,    &Features::sha1,       &Features::sha2};

Features all_features() {
  Features f;
  for (bool Features::*field : kFields) {
    f.*field = true;
  }
  return f;
}

// --- The parser (pure functions) ---

TEST(CpuFeatureMask, UnsetOrEmptyDisablesNothing) {
  for (std::string_view spec : {"", " ", ",", " , ,"}) {
    const auto mask = parse_feature_mask(spec);
    EXPECT_EQ(feature_names(mask.disabled), "") << '"' << spec << '"';
    EXPECT_EQ(mask.unknown, "") << '"' << spec << '"';
  }
}

TEST(CpuFeatureMask, CommaSeparatedNamesWithBlanks) {
  const auto mask = parse_feature_mask(" sha_ni ,avx512f,, pclmulqdq");
  EXPECT_EQ(feature_names(mask.disabled), "pclmulqdq vpclmulqdq sha_ni avx512f avx512bw avx512vl");
  EXPECT_EQ(mask.unknown, "");
  EXPECT_EQ(mask.spec, " sha_ni ,avx512f,, pclmulqdq");
}

TEST(CpuFeatureMask, DisablingABaseDisablesItsExtensions) {
  EXPECT_EQ(feature_names(parse_feature_mask("avx").disabled),
            "avx avx2 vaes vpclmulqdq avx512f avx512bw avx512vl");
  EXPECT_EQ(feature_names(parse_feature_mask("avx2").disabled),
            "avx2 vaes vpclmulqdq avx512f avx512bw avx512vl");
  EXPECT_EQ(feature_names(parse_feature_mask("aesni").disabled), "aesni vaes");
  EXPECT_EQ(feature_names(parse_feature_mask("pclmulqdq").disabled), "pclmulqdq vpclmulqdq");
  EXPECT_EQ(feature_names(parse_feature_mask("vaes").disabled), "vaes");
  EXPECT_EQ(feature_names(parse_feature_mask("avx512f").disabled), "avx512f avx512bw avx512vl");
  EXPECT_EQ(feature_names(parse_feature_mask("avx512bw").disabled), "avx512bw");
  EXPECT_EQ(feature_names(parse_feature_mask("avx512vl").disabled), "avx512vl");
  EXPECT_EQ(feature_names(parse_feature_mask("neon").disabled), "neon aes pmull sha1 sha2");
  EXPECT_EQ(feature_names(parse_feature_mask("pmull").disabled), "pmull");
}

TEST(CpuFeatureMask, UnknownNamesAreCollectedAndDisableNothing) {
  const auto mask = parse_feature_mask("vaess,SHA_NI,aesni,sse2");
  EXPECT_EQ(mask.unknown, "vaess,SHA_NI,sse2");  // names are case-sensitive
  EXPECT_EQ(feature_names(mask.disabled), "aesni vaes");
}

TEST(CpuFeatureMask, ApplyingOnlyEverRemovesFeatures) {
  const Features some{.aesni = true, .sha_ni = true};
  const auto none = parse_feature_mask("");
  const auto avx2 = parse_feature_mask("avx2");
  EXPECT_EQ(feature_names(apply_feature_mask(some, avx2)), "aesni sha_ni");
  EXPECT_EQ(feature_names(apply_feature_mask(some, none)), "aesni sha_ni");
  EXPECT_EQ(feature_names(apply_feature_mask(all_features(), avx2)),
            "aesni pclmulqdq avx sha_ni neon aes pmull sha1 sha2");
}

// --- This process's variant ---

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// The variant ctest runs: WIRESEAL_TEST_CPU_VARIANT=<name>:<features that must be off>,
// unset in the default run.
std::string variant_field(bool features) {
  const std::string v = env("WIRESEAL_TEST_CPU_VARIANT");
  const std::size_t colon = v.find(':');
  if (v.empty() || colon == std::string::npos) {
    EXPECT_TRUE(v.empty()) << "WIRESEAL_TEST_CPU_VARIANT=" << v << " is not <name>:<features>";
    return features ? "" : "default";
  }
  return features ? v.substr(colon + 1) : v.substr(0, colon);
}

std::string variant_name() { return variant_field(false); }

// expected_off is the variant's features that must be off, as a feature set.
Features expected_off() {
  const auto mask = parse_feature_mask(variant_field(true));
  EXPECT_EQ(mask.unknown, "") << "WIRESEAL_TEST_CPU_VARIANT names unknown features";
  return mask.disabled;
}

// features_equal compares two feature sets by their names.
void expect_features(const Features& got, const Features& want, const char* what) {
  EXPECT_EQ(feature_names(got), feature_names(want)) << what;
}

TEST(CpuVariant, TheMaskIsTheVariantsAndNamesOnlyKnownFeatures) {
  const auto& mask = cpu::feature_mask();
  EXPECT_EQ(mask.spec, env("WIRESEAL_CPU_DISABLE"));
  EXPECT_EQ(mask.unknown, "") << "WIRESEAL_CPU_DISABLE=" << mask.spec;
  expect_features(mask.disabled, expected_off(), "features the mask disables");
  report("cpu variant", variant_name() + ": WIRESEAL_CPU_DISABLE=" + mask.spec + " disables '" +
                            feature_names(mask.disabled) + "'");
}

TEST(CpuVariant, DisabledFeaturesAreOffAndTheOthersAsProbed) {
  const Features& probed = cpu::probed_features();
  const Features& used = cpu::features();
  const Features off = expected_off();
  Features want = probed;
  for (bool Features::*f : kFields) {
    want.*f = probed.*f && !(off.*f);
  }
  expect_features(used, want, "features() = probed minus the variant's features");
  report("cpu features",
         "probed '" + feature_names(probed) + "', used '" + feature_names(used) + "'");
}

// Under an emulated CPU model (ctest's cpu.qemu_<model> tests on ARM) the probe must read
// exactly that model's features: WIRESEAL_TEST_EXPECT_PROBED lists them, comma-separated, in
// feature_names' order.
TEST(CpuVariant, TheProbeReadsTheEmulatedCpusFeatures) {
  std::string expected = env("WIRESEAL_TEST_EXPECT_PROBED");
  const std::string probed = feature_names(cpu::probed_features());
  if (expected.empty()) {
    report("cpu probe", "no emulated CPU model: probed '" + probed + "'");
    return;
  }
  std::replace(expected.begin(), expected.end(), ',', ' ');
  EXPECT_EQ(probed, expected) << "the emulated CPU's features";
}

TEST(CpuVariant, BackendAvailabilityFollowsTheFeatures) {
  for (Primitive p : kPrimitives) {
    SCOPED_TRACE(primitive_name(p));
    // expected_backends fails the test on any backend whose availability disagrees.
    const std::vector<Backend> expected = expected_backends(p);
    for (Backend b : kForcedBackends) {
      if (!implements(p, b)) {
        EXPECT_FALSE(crypto::is_available(p, b)) << crypto::to_string(b);
      }
    }
    // kAuto picks a backend that must be there, and a specialised one whenever there is one.
    const Backend chosen = crypto::resolve(p, Backend::kAuto);
    EXPECT_TRUE(must_serve(p, chosen)) << crypto::to_string(chosen);
    if (expected.size() > 1) {
      EXPECT_NE(chosen, Backend::kOpenSsl);
    }
    report(primitive_name(p), "auto -> " + std::string(crypto::to_string(chosen)) +
                                  ", forced: " + backend_names(expected));
  }
}

// has_prefix / has_suffix for the ipsec-mb architecture names ("avx512-t2", "sse-t1", ...).
bool has_prefix(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool has_suffix(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

TEST(CpuVariant, KernelChoicesFollowTheFeatures) {
  const Features& cpu = cpu::features();
  EXPECT_EQ(crypto::detail::native_uses_vaes(), cpu.aesni && cpu.vaes && cpu.avx2);
  EXPECT_EQ(crypto::detail::hmac_uses_native_sha(), cpu.sha_ni || cpu.sha1);
  // ARM: the AES instructions where the core has them, else the bit-sliced AES on NEON.
  if (test::kArmTarget && must_serve(Primitive::kAesCtr, Backend::kNative)) {
    EXPECT_STREQ(crypto::detail::native_aes_name(), cpu.aes ? "armv8-ce" : "neon-bitsliced");
  }
  const std::string_view arch = crypto::detail::ipsecmb_architecture();
  EXPECT_EQ(!arch.empty(), WIRESEAL_HAS_IPSEC_MB == 1 && cpu.aesni && cpu.pclmulqdq) << arch;
  // ipsec-mb never gets more than the masked features allow. (What it gets within that depends
  // on its own detection, e.g. AVX-512 BW/DQ/VL, which wireseal does not probe.)
  if (has_prefix(arch, "avx512")) {
    EXPECT_TRUE(cpu.avx512f) << arch;
  } else if (has_prefix(arch, "avx2")) {
    EXPECT_TRUE(cpu.avx2) << arch;
  } else if (has_prefix(arch, "avx")) {
    EXPECT_TRUE(cpu.avx) << arch;
  }
  // Type-2 managers run VAES/VPCLMULQDQ (AVX2, AVX-512) or SHA-NI (SSE, AVX) code.
  if (has_suffix(arch, "-t2") || has_suffix(arch, "-t3")) {
    EXPECT_TRUE(cpu.sha_ni) << arch;
    if (has_prefix(arch, "avx512") || has_prefix(arch, "avx2")) {
      EXPECT_TRUE(cpu.vaes && cpu.vpclmulqdq) << arch;
    }
  }
  report(
      "kernels",
      std::string("native ") +
          (!must_serve(Primitive::kAesCtr, Backend::kNative) ? "unavailable"
                                                             : crypto::detail::native_aes_name()) +
          ", hmac " +
          (crypto::detail::hmac_uses_native_sha() ? crypto::detail::native_sha_kernels().name
                                                  : "openssl-sha") +
          ", ipsec-mb " + (arch.empty() ? "unavailable" : std::string(arch)));
}

TEST(CpuVariant, ExercisesPathsTheDefaultRunDoesNot) {
  const Features off = expected_off();
  if (feature_names(off).empty()) {
    report("variant", "the default run: every feature this CPU has");
    return;
  }
  Features taken_away;
  const Features& probed = cpu::probed_features();
  for (bool Features::*f : kFields) {
    taken_away.*f = probed.*f && off.*f;
  }
  if (feature_names(taken_away).empty()) {
    GTEST_SKIP() << "cpu." << variant_name() << " disables '" << feature_names(off)
                 << "', which this CPU does not have: here it runs the default run's paths";
  }
  report("variant", "cpu." + variant_name() + " takes away '" + feature_names(taken_away) +
                        "' that this CPU has");
}

}  // namespace
}  // namespace wireseal::test
