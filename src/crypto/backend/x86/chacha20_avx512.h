#pragma once
// ChaCha20-Poly1305 (RFC 8439, section 2.8) on AVX-512F/BW: the keystream four blocks per
// 512-bit register set (one block per 128-bit lane, rows as registers) and the scalar Poly1305
// of poly1305.h running between its rounds. Defined in chacha20_avx512.cc, compiled with
// -mavx512f -mavx512bw; reached only when features().avx512f and avx512bw (native_select.cc).

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

struct Poly1305State;

// ChaChaPolyRecord is one record's input: key and nonce as little-endian words, the associated
// data, and `len` bytes of text in `in`, written to `out` (in == out is allowed).
struct ChaChaPolyRecord {
  const std::uint32_t* key;    // 8 words
  const std::uint32_t* nonce;  // 3 words
  const std::uint8_t* aad;
  std::size_t aad_len;
  const std::uint8_t* in;
  std::uint8_t* out;
  std::size_t len;
};

// chacha20_poly1305_avx512 encrypts (sealing) or decrypts the record and leaves in `poly` the
// Poly1305 state over the associated data, the ciphertext and the lengths block, ready for
// poly1305_finish. The one-time key comes from block 0 and never leaves registers and `poly`;
// opening absorbs each part of the ciphertext before it is overwritten in place.
void chacha20_poly1305_avx512(const ChaChaPolyRecord& record, Poly1305State& poly,
                              bool sealing) noexcept;

}  // namespace wireseal::crypto::detail
