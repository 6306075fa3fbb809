#include "bench/suites.h"

namespace wireseal::bench {
namespace {

// Add dtls/, srtp/ and smb/ suites here; their benchmark names start with that prefix.
constexpr Suite kSuites[] = {
    {"crypto/aead", &register_crypto_aead},
    {"crypto/aes", &register_crypto_aes},
    {"crypto/mac", &register_crypto_mac},
    {"crypto/batch", &register_crypto_batch},
};

}  // namespace

std::span<const Suite> suites() { return kSuites; }

void register_all_suites() {
  // Google Benchmark keeps registrations for the life of the process; registering twice
  // would run everything twice.
  static const bool registered = [] {
    for (const Suite& suite : kSuites) {
      suite.register_fn();
    }
    return true;
  }();
  static_cast<void>(registered);
}

}  // namespace wireseal::bench
