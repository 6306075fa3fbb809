#include "common/ct.h"

#include <openssl/crypto.h>

namespace wireseal::detail {

bool ct_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) noexcept {
  if (a.size() != b.size()) {
    return false;
  }
  std::uint8_t diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = static_cast<std::uint8_t>(diff | (a[i] ^ b[i]));
  }
  // Launder through a volatile so the compiler cannot turn the loop into an early-exit memcmp.
  volatile std::uint8_t sink = diff;
  return sink == 0;
}

void secure_wipe(void* bytes, std::size_t len) noexcept {
  if (len != 0) {
    OPENSSL_cleanse(bytes, len);
  }
}

}  // namespace wireseal::detail
