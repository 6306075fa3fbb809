#include "wireseal/random.h"

#include <openssl/rand.h>

#include <cstdlib>

namespace wireseal {
namespace {

void openssl_fill(void* /*context*/, std::span<std::uint8_t> out) noexcept {
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) {
    // No randomness means no safe IVs or handshakes: stop rather than continue predictably.
    std::abort();
  }
}

}  // namespace

RandomSource system_random() noexcept { return RandomSource{&openssl_fill, nullptr}; }

}  // namespace wireseal
