#pragma once
// Shared helpers for the crypto core's vector, tamper, differential and allocation tests: the
// backends that must be available (from the masked CPU features and the build) to force in
// turn, a bounded failure log (so a broken backend reports a few examples, not ten thousand),
// and vector-file loading that fails loudly.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/cpu_features.h"
#include "support/hex.h"
#include "support/vector_file.h"
#include "wireseal/crypto/backend.h"

namespace wireseal::test {

using Bytes = std::vector<std::uint8_t>;

#if !defined(WIRESEAL_HAS_IPSEC_MB)
#error "tests/CMakeLists.txt defines WIRESEAL_HAS_IPSEC_MB (0 or 1) for every test"
#endif

// kForcedBackends are the concrete backends a test forces in turn (kAuto resolves to one of
// them).
inline constexpr crypto::Backend kForcedBackends[] = {
    crypto::Backend::kOpenSsl, crypto::Backend::kNative, crypto::Backend::kIpsecMb};

inline std::string primitive_name(crypto::Primitive primitive) {
  switch (primitive) {
    case crypto::Primitive::kAesGcm:
      return "AES-GCM";
    case crypto::Primitive::kAesCcm:
      return "AES-CCM";
    case crypto::Primitive::kChaCha20Poly1305:
      return "ChaCha20-Poly1305";
    case crypto::Primitive::kAesCtr:
      return "AES-CTR";
    case crypto::Primitive::kAesCbc:
      return "AES-CBC";
    case crypto::Primitive::kAesCmac:
      return "AES-CMAC";
    case crypto::Primitive::kHmacSha1:
      return "HMAC-SHA1";
    case crypto::Primitive::kHmacSha224:
      return "HMAC-SHA224";
    case crypto::Primitive::kHmacSha256:
      return "HMAC-SHA256";
    case crypto::Primitive::kHmacSha384:
      return "HMAC-SHA384";
    case crypto::Primitive::kHmacSha512:
      return "HMAC-SHA512";
  }
  return "?";
}

// is_hmac tells whether `primitive` is one of the HMAC families.
inline bool is_hmac(crypto::Primitive primitive) {
  switch (primitive) {
    case crypto::Primitive::kHmacSha1:
    case crypto::Primitive::kHmacSha224:
    case crypto::Primitive::kHmacSha256:
    case crypto::Primitive::kHmacSha384:
    case crypto::Primitive::kHmacSha512:
      return true;
    default:
      return false;
  }
}

// kArmTarget: this build's native backend is backend/arm/ (aarch64 or 32-bit ARM), which
// serves AES-GCM too, but no ChaCha20-Poly1305.
#if defined(__aarch64__) || defined(__arm__)
inline constexpr bool kArmTarget = true;
#else
inline constexpr bool kArmTarget = false;
#endif

// implements tells whether `backend` has code for `primitive` at all, on any CPU of this
// target: the design, not this machine (the native kernels do ChaCha20-Poly1305 only on x86
// (AVX-512F), and HMAC only with SHA-1 and SHA-256; ipsec-mb serves only GCM and ChaCha20).
inline bool implements(crypto::Primitive primitive, crypto::Backend backend) {
  const bool aead_only =
      primitive == crypto::Primitive::kAesGcm || primitive == crypto::Primitive::kChaCha20Poly1305;
  switch (backend) {
    case crypto::Backend::kOpenSsl:
      return true;
    case crypto::Backend::kNative:
      if (is_hmac(primitive)) {
        return primitive == crypto::Primitive::kHmacSha1 ||
               primitive == crypto::Primitive::kHmacSha256;
      }
      return !kArmTarget || primitive != crypto::Primitive::kChaCha20Poly1305;
    case crypto::Backend::kIpsecMb:
      return aead_only;
    case crypto::Backend::kAuto:
      break;
  }
  return false;
}

// missing_features lists the CPU features `backend` needs for `primitive` that `cpu` (by
// default this process's masked features) lacks, space-separated; "" when it has them all.
inline std::string missing_features(crypto::Primitive primitive, crypto::Backend backend,
                                    const cpu::Features& cpu = cpu::features()) {
  std::string missing;
  auto need = [&missing](bool present, const char* name) {
    if (!present) {
      missing += missing.empty() ? "" : " ";
      missing += name;
    }
  };
  if (kArmTarget && backend == crypto::Backend::kNative && is_hmac(primitive)) {
    if (primitive == crypto::Primitive::kHmacSha1) {
      need(cpu.sha1, "sha1");
    } else {
      need(cpu.sha2, "sha2");
    }
  } else if (kArmTarget && backend == crypto::Backend::kNative &&
             primitive == crypto::Primitive::kAesCtr) {
    need(cpu.aes || cpu.neon, "neon");  // the AES instructions, or the bit-sliced AES
  } else if (kArmTarget && backend == crypto::Backend::kNative) {
    need(cpu.aes, "aes");
    if (primitive == crypto::Primitive::kAesGcm) {
      need(cpu.pmull, "pmull");
    }
  } else if (backend == crypto::Backend::kNative && is_hmac(primitive)) {
    need(cpu.sha_ni, "sha_ni");
  } else if (backend == crypto::Backend::kNative &&
             primitive == crypto::Primitive::kChaCha20Poly1305) {
    need(cpu.avx512f, "avx512f");
    need(cpu.avx512bw, "avx512bw");
  } else if (backend == crypto::Backend::kNative && primitive == crypto::Primitive::kAesGcm) {
    // gcm_vaes.cc, with ipsec-mb's GCM (needs AES-NI and PCLMULQDQ) for long messages.
    need(cpu.aesni, "aesni");
    need(cpu.pclmulqdq, "pclmulqdq");
    need(cpu.vaes, "vaes");
    need(cpu.vpclmulqdq, "vpclmulqdq");
    need(cpu.avx512f, "avx512f");
    need(cpu.avx512bw, "avx512bw");
    need(cpu.avx512vl, "avx512vl");
  } else if (backend == crypto::Backend::kNative) {
    need(cpu.aesni, "aesni");
  } else if (backend == crypto::Backend::kIpsecMb) {
    need(cpu.aesni, "aesni");
    need(cpu.pclmulqdq, "pclmulqdq");
    if (primitive == crypto::Primitive::kChaCha20Poly1305) {
      need(cpu.avx2, "avx2");
    }
  }
  return missing;
}

// why_not_available says why `backend`, which implements `primitive`, cannot serve it in this
// build on this CPU with this process's WIRESEAL_CPU_DISABLE mask; "" when it must serve it.
// Stated here independently of crypto::is_available, so the tests can hold the two against
// each other.
inline std::string why_not_available(crypto::Primitive primitive, crypto::Backend backend) {
#if !defined(__x86_64__)
  if (backend == crypto::Backend::kIpsecMb ||
      (backend == crypto::Backend::kNative && !kArmTarget)) {
    return "no " + std::string(crypto::to_string(backend)) + " backend on this target";
  }
#endif
  if (backend == crypto::Backend::kIpsecMb && WIRESEAL_HAS_IPSEC_MB == 0) {
    return "built with WIRESEAL_WITH_IPSEC_MB=OFF";
  }
  if (!kArmTarget && backend == crypto::Backend::kNative &&
      primitive == crypto::Primitive::kAesGcm && WIRESEAL_HAS_IPSEC_MB == 0) {
    return "its long messages need ipsec-mb (built with WIRESEAL_WITH_IPSEC_MB=OFF)";
  }
  const std::string missing = missing_features(primitive, backend);
  if (missing.empty()) {
    return "";
  }
  // The same requirement against the unmasked CPU tells the mask's doing from the CPU's.
  const std::string& mask = cpu::feature_mask().spec;
  const cpu::Features& probed = cpu::probed_features();
  const bool masked = missing_features(primitive, backend, probed).empty();
  return "needs " + missing +
         (masked ? " (disabled by WIRESEAL_CPU_DISABLE=" + mask + ")" : " (not on this CPU)");
}

// check_availability holds crypto::is_available against the expectation for one backend, once
// per running test (loops call it per vector): a backend that must serve `primitive` and does
// not is a failure, and so is one that serves it though it must not (a mask that did not reach
// it would otherwise silently test the full CPU's path again). One that legitimately cannot
// is a counted skip: a [ report ] line and the test property backends_not_run.
inline void check_availability(crypto::Primitive primitive, crypto::Backend backend,
                               const std::string& why_not) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  if (test == nullptr) {
    return;  // called while tests are being registered; the constructors will throw instead
  }
  static std::set<std::string> seen;
  static std::map<std::string, int> not_run_per_test;
  const std::string test_name = std::string(test->test_suite_name()) + "." + test->name();
  const std::string what =
      std::string(crypto::to_string(backend)) + " for " + primitive_name(primitive);
  if (!seen.insert(test_name + " " + what).second) {
    return;
  }
  const bool available = crypto::is_available(primitive, backend);
  if (available != why_not.empty()) {
    ADD_FAILURE() << "backend " << what << " is " << (available ? "" : "not ")
                  << "available, but it must " << (available ? "not be: " + why_not : "be")
                  << " (cpu features: " << cpu::feature_names(cpu::features())
                  << ", ipsec-mb in build: " << WIRESEAL_HAS_IPSEC_MB << ")";
    return;
  }
  if (!why_not.empty()) {
    std::cout << "[ report   ] backend not run: " << what << ": " << why_not << '\n';
    ::testing::Test::RecordProperty("backends_not_run", ++not_run_per_test[test_name]);
  }
}

// expected_backends lists the forced backends that must serve `primitive` in this build on this
// (masked) CPU, checking crypto::is_available against that for every backend that implements
// it (see check_availability). A test loops over exactly these: one that should be there and
// is not makes its constructor throw, which fails the test instead of skipping it.
inline std::vector<crypto::Backend> expected_backends(crypto::Primitive primitive) {
  std::vector<crypto::Backend> out;
  for (crypto::Backend b : kForcedBackends) {
    if (!implements(primitive, b)) {
      continue;
    }
    const std::string why_not = why_not_available(primitive, b);
    check_availability(primitive, b, why_not);
    if (why_not.empty()) {
      out.push_back(b);
    }
  }
  return out;
}

// must_serve tells whether `backend` is one of expected_backends(primitive).
inline bool must_serve(crypto::Primitive primitive, crypto::Backend backend) {
  const std::vector<crypto::Backend> expected = expected_backends(primitive);
  return std::find(expected.begin(), expected.end(), backend) != expected.end();
}

// backend_names joins backend names for reports ("openssl, native").
inline std::string backend_names(const std::vector<crypto::Backend>& backends) {
  std::string s;
  for (crypto::Backend b : backends) {
    if (!s.empty()) {
      s += ", ";
    }
    s += std::string(crypto::to_string(b));
  }
  return s;
}

// FailureLog counts failures and reports only the first few as gtest failures.
class FailureLog {
 public:
  static constexpr int kMaxReported = 20;

  void fail(const std::string& where, const std::string& what) {
    ++count_;
    if (count_ <= kMaxReported) {
      ADD_FAILURE() << where << ": " << what;
    }
  }
  int count() const { return count_; }

 private:
  int count_ = 0;
};

// read_vectors_or_fail reads a vector file. A missing file is a test failure (never a skip):
// it adds a failure naming the path and returns no records, so count checks fail too.
inline std::vector<VectorRecord> read_vectors_or_fail(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) {
    ADD_FAILURE() << "missing vector file " << path
                  << " (install python3-cryptography-vectors or set WIRESEAL_CAVP_DIR)";
    return {};
  }
  return read_vector_file(path);
}

// decode_value decodes a field that is hex or a double-quoted ASCII string (BoringSSL style).
inline Bytes decode_value(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    const std::string_view text = value.substr(1, value.size() - 2);
    return Bytes(text.begin(), text.end());
  }
  return from_hex(value);
}

// report prints a line to stdout and records it as a gtest property of the running test.
inline void report(const std::string& key, const std::string& value) {
  std::cout << "[ report   ] " << key << ": " << value << '\n';
  ::testing::Test::RecordProperty(key, value);
}

}  // namespace wireseal::test
