#pragma once
// Shared helpers for the crypto core's vector, tamper and allocation tests: the list of
// backends to force in turn, a bounded failure log (so a broken backend reports a few
// examples, not ten thousand), and vector-file loading that fails loudly.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "support/hex.h"
#include "support/vector_file.h"
#include "wireseal/crypto/backend.h"

namespace wireseal::test {

using Bytes = std::vector<std::uint8_t>;

// kForcedBackends are the concrete backends a test forces in turn (kAuto resolves to one of
// them). A backend that cannot serve a primitive here is skipped; the reports say which ran.
inline constexpr crypto::Backend kForcedBackends[] = {
    crypto::Backend::kOpenSsl, crypto::Backend::kNative, crypto::Backend::kIpsecMb};

// available_backends lists the forced backends that serve `primitive` in this build/CPU.
inline std::vector<crypto::Backend> available_backends(crypto::Primitive primitive) {
  std::vector<crypto::Backend> out;
  for (crypto::Backend b : kForcedBackends) {
    if (crypto::is_available(primitive, b)) {
      out.push_back(b);
    }
  }
  return out;
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
