#pragma once
// Portable AES key expansion (FIPS-197 §5.2) producing round keys in the byte order that the
// AES-NI/VAES instructions load directly. Set-up only: speed does not matter here, clarity does.

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

struct AesRoundKeys {
  alignas(16) std::uint8_t bytes[15][16];  // rounds + 1 round keys (11, 13 or 15 used)
  int rounds = 0;                          // 10, 12 or 14
};

// expand_aes_key fills `out` from a 16-, 24- or 32-byte key. Returns false for other sizes.
bool expand_aes_key(const std::uint8_t* key, std::size_t key_len, AesRoundKeys& out) noexcept;

}  // namespace wireseal::crypto::detail
