#pragma once
// ChaCha20 (RFC 8439, section 2.4) keystream on AVX-512F: four blocks per 512-bit register set,
// one block per 128-bit lane, rows as registers. Defined in chacha20_avx512.cc, compiled with
// -mavx512f; reached only when features().avx512f (native_select.cc).

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

// chacha20_blocks4_avx512 writes the four keystream blocks counter..counter+3 (256 bytes).
void chacha20_blocks4_avx512(const std::uint32_t key[8], const std::uint32_t nonce[3],
                             std::uint32_t counter, std::uint8_t out[256]) noexcept;

struct Poly1305State;

// chacha20_poly1305_bulk_avx512 is the AEAD's body past its first group. It XORs bytes
// [start, len) of `in` into `out` with the keystream (byte i under block i / 64 + 1, the AEAD's
// numbering; start is a multiple of 64) and absorbs all of the ciphertext [0, len) into `poly`,
// zero-padded to whole blocks: the ciphertext is `out` when sealing (mac_output; the caller has
// written [0, start) already) and `in` when opening (in == out is allowed: each byte is read
// before it is overwritten, and [0, start) is not written). Poly1305 blocks run between the
// ChaCha20 rounds, so the scalar multiplier and the vector units work at once.
void chacha20_poly1305_bulk_avx512(const std::uint32_t key[8], const std::uint32_t nonce[3],
                                   std::uint8_t* out, const std::uint8_t* in, std::size_t start,
                                   std::size_t len, Poly1305State& poly, bool mac_output) noexcept;

}  // namespace wireseal::crypto::detail
