#pragma once
// below(rng, n): a pseudo-random value in [0, n) as a std::size_t, for tests that draw sizes
// and offsets from std::mt19937_64. The modulo is taken in 64 bits and only then narrowed, so a
// 32-bit target draws exactly the values a 64-bit one does from the same seed.
// random_bytes(rng, n): n pseudo-random bytes from the same generator.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace wireseal::test {

inline std::size_t below(std::mt19937_64& rng, std::uint64_t n) {
  return static_cast<std::size_t>(rng() % n);
}

inline std::vector<std::uint8_t> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::uint8_t> b(n);
  for (auto& x : b) {
    x = static_cast<std::uint8_t>(rng());
  }
  return b;
}

}  // namespace wireseal::test
