#pragma once
// Constant-time validation helpers. This test binary is built only with
// WIRESEAL_CT_VALIDATION and runs under valgrind memcheck (ctest label `ct`): secret() marks
// bytes undefined, so every branch or memory address computed from them — and from anything
// derived from them, such as round keys, decrypted plaintext or a recomputed tag — is
// reported, and valgrind's non-zero exit fails the test. The library declassifies where a
// secret-derived value becomes public (the accept/reject verdict, authenticated plaintext).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/ct.h"

namespace wireseal::test {

using Bytes = std::vector<std::uint8_t>;

// secret marks `bytes` as secret (undefined to valgrind).
inline void secret(std::span<const std::uint8_t> bytes) {
  WS_CT_SECRET(bytes.data(), bytes.size());
}
// reveal marks `bytes` as public again, for the test's own checks of a result.
inline void reveal(std::span<const std::uint8_t> bytes) {
  WS_CT_DECLASSIFY(bytes.data(), bytes.size());
}
// reveal_value makes a value the test branches on public.
template <class T>
T reveal_value(T v) {
  WS_CT_DECLASSIFY(&v, sizeof(v));
  return v;
}

inline Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<std::uint8_t>(seed + 31 * i + (i >> 3));
  }
  return b;
}

}  // namespace wireseal::test
