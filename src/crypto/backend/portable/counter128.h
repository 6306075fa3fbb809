#pragma once
// Counter128: a 128-bit big-endian counter block (AES-CTR's, SRTP's, GCM's before it is cut to
// 32 bits) kept as two host integers, so stepping it is two integer operations. Every
// architecture's CTR kernel builds its vectors from hi/lo.
#include <cstdint>
#include <cstring>

namespace wireseal::crypto::detail {

struct Counter128 {
  std::uint64_t hi;
  std::uint64_t lo;

  static std::uint64_t load_be64(const std::uint8_t* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return __builtin_bswap64(v);
  }

  explicit Counter128(const std::uint8_t* block) noexcept
      : hi(load_be64(block)), lo(load_be64(block + 8)) {}

  // advance adds n, carrying into the high half.
  void advance(std::uint64_t n) noexcept {
    const std::uint64_t before = lo;
    lo += n;
    if (lo < before) {
      ++hi;
    }
  }
  void step() noexcept {
    if (++lo == 0) {
      ++hi;
    }
  }
};

// cmac_double doubles a block in GF(2^128) as SP 800-38B's subkey generation defines
// (big-endian, reduction by x^128 + x^7 + x^2 + x + 1), in place and in constant time.
inline void cmac_double(std::uint8_t* b) noexcept {
  const std::uint8_t msb = b[0] >> 7;
  for (int i = 0; i < 15; ++i) {
    b[i] = static_cast<std::uint8_t>((b[i] << 1) | (b[i + 1] >> 7));
  }
  // The reduction constant is masked in, not branched on.
  b[15] = static_cast<std::uint8_t>((b[15] << 1) ^ (0x87 & (0 - msb)));
}

}  // namespace wireseal::crypto::detail
