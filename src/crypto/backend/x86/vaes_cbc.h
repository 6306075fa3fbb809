#pragma once
// AES-CBC decryption with VAES on 256-bit registers (16 blocks in flight). Defined in
// vaes_cbc.cc, compiled with -mvaes -mavx2; call only when features().vaes && .avx2.

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

// cbc_decrypt_vaes decrypts the largest multiple of 16 blocks of `len` bytes with the
// equivalent-inverse-cipher round keys `dec_round_keys` (rounds + 1 blocks), chaining from
// `iv`. `in` and `out` may be identical. Writes the last ciphertext block it consumed (or the
// IV if none) to `next_iv` — the chaining value for whatever follows — and returns the number
// of bytes processed.
std::size_t cbc_decrypt_vaes(const void* dec_round_keys, int rounds, const std::uint8_t* iv,
                             const std::uint8_t* in, std::uint8_t* out, std::size_t len,
                             std::uint8_t* next_iv) noexcept;

}  // namespace wireseal::crypto::detail
