#pragma once
// Poly1305 (RFC 8439, section 2.5) on 64-bit limbs, for the native ChaCha20-Poly1305. Scalar
// integer code: it runs on the integer multipliers while the ChaCha20 keystream runs on the
// vector units, and the keystream loop absorbs blocks between its rounds so the two overlap
// (chacha20_avx512.cc). Constant time: no branch or address depends on the key or the data.
// Radix 2^64: the accumulator h = h0 + h1 * 2^64 + h2 * 2^128 stays below 2^131; one block is
// four 64x64->128 products and two small ones. Clamping leaves r1 a multiple of 4, so the
// products that land at 2^128 and above fold back with s1 = 5 * (r1 / 4).

#include <cstddef>
#include <cstdint>

#include "common/bytes.h"

namespace wireseal::crypto::detail {

__extension__ using Poly1305Wide = unsigned __int128;  // GCC and Clang on 64-bit targets

struct Poly1305State {
  std::uint64_t r0, r1, s1;  // s1 = r1 + r1 / 4
  std::uint64_t h0, h1, h2;
  std::uint64_t pad0, pad1;
};

// poly1305_start sets the one-time key: r (the first 16 bytes, as two little-endian words,
// clamped here) and s (the next 16), and an empty accumulator.
inline void poly1305_start(Poly1305State& st, std::uint64_t r_lo, std::uint64_t r_hi,
                           std::uint64_t s_lo, std::uint64_t s_hi) noexcept {
  st.r0 = r_lo & 0x0ffffffc0fffffffULL;
  st.r1 = r_hi & 0x0ffffffc0ffffffcULL;
  st.s1 = st.r1 + (st.r1 >> 2);
  st.h0 = st.h1 = st.h2 = 0;
  st.pad0 = s_lo;
  st.pad1 = s_hi;
}

// poly1305_block absorbs one full block given as its two little-endian words (the AEAD pads
// every input to whole blocks, so each carries the 2^128 bit).
[[gnu::always_inline]] inline void poly1305_block(Poly1305State& st, std::uint64_t m_lo,
                                                  std::uint64_t m_hi) noexcept {
  using u128 = Poly1305Wide;
  const std::uint64_t r0 = st.r0, r1 = st.r1, s1 = st.s1;
  u128 t = u128{st.h0} + m_lo;  // h += m + 2^128
  std::uint64_t h0 = static_cast<std::uint64_t>(t);
  t = u128{st.h1} + m_hi + static_cast<std::uint64_t>(t >> 64);
  std::uint64_t h1 = static_cast<std::uint64_t>(t);
  const std::uint64_t h2 = st.h2 + static_cast<std::uint64_t>(t >> 64) + 1;
  // h *= r as d0 + d1 * 2^64 + d2 * 2^128, with 2^128 * r1 folded to s1
  const u128 d0 = u128{h0} * r0 + u128{h1} * s1;
  const u128 d1 =
      u128{h0} * r1 + u128{h1} * r0 + u128{h2 * s1} + static_cast<std::uint64_t>(d0 >> 64);
  const std::uint64_t d2 = h2 * r0 + static_cast<std::uint64_t>(d1 >> 64);
  // Partial reduction: the bits from 2^130 up come back multiplied by 5.
  t = u128{static_cast<std::uint64_t>(d0)} + (d2 >> 2) * 5;
  h0 = static_cast<std::uint64_t>(t);
  t = u128{static_cast<std::uint64_t>(d1)} + static_cast<std::uint64_t>(t >> 64);
  h1 = static_cast<std::uint64_t>(t);
  st.h0 = h0;
  st.h1 = h1;
  st.h2 = (d2 & 3) + static_cast<std::uint64_t>(t >> 64);
}

// poly1305_blocks absorbs `num_blocks` full 16-byte blocks.
inline void poly1305_blocks(Poly1305State& st, const std::uint8_t* data,
                            std::size_t num_blocks) noexcept {
  Poly1305State local = st;  // kept in registers across the loop
  for (std::size_t i = 0; i < num_blocks; ++i, data += 16) {
    poly1305_block(local, load_le64(data), load_le64(data + 8));
  }
  st.h0 = local.h0;
  st.h1 = local.h1;
  st.h2 = local.h2;
}

// poly1305_finish writes the 16-byte tag.
void poly1305_finish(const Poly1305State& st, std::uint8_t tag[16]) noexcept;

}  // namespace wireseal::crypto::detail
