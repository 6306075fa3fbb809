// VAES AES-CBC decryption (see vaes_cbc.h). Each group of 16 blocks is loaded completely —
// ciphertext and the one-block-shifted ciphertext that is XORed after decryption — before any
// of it is stored, so decrypting in place is safe. The block before the group, which an
// in-place previous group has already overwritten, is carried in a register.
#include "backend/x86/vaes_cbc.h"

#include <immintrin.h>

#include <cstring>

namespace wireseal::crypto::detail {

std::size_t cbc_decrypt_vaes(const void* dec_round_keys, int rounds, const std::uint8_t* iv,
                             const std::uint8_t* in, std::uint8_t* out, std::size_t len,
                             std::uint8_t* next_iv) noexcept {
  constexpr std::size_t kGroup = 16 * 16;
  const std::size_t total = len - len % kGroup;
  __m128i prev = _mm_loadu_si128(reinterpret_cast<const __m128i*>(iv));
  if (total != 0) {
    const __m128i* rk128 = static_cast<const __m128i*>(dec_round_keys);
    __m256i rk[15];
    for (int i = 0; i <= rounds; ++i) {
      rk[i] = _mm256_broadcastsi128_si256(_mm_loadu_si128(rk128 + i));
    }
    for (std::size_t off = 0; off < total; off += kGroup) {
      const std::uint8_t* src = in + off;
      __m256i c[8];
      __m256i shifted[8];
      for (int i = 0; i < 8; ++i) {
        c[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 32 * i));
      }
      shifted[0] =
          _mm256_inserti128_si256(_mm256_castsi128_si256(prev), _mm256_castsi256_si128(c[0]), 1);
      for (int i = 1; i < 8; ++i) {
        shifted[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 32 * i - 16));
      }
      prev = _mm256_extracti128_si256(c[7], 1);
      __m256i x[8];
      for (int i = 0; i < 8; ++i) {
        x[i] = _mm256_xor_si256(c[i], rk[0]);
      }
      for (int r = 1; r < rounds; ++r) {
        for (int i = 0; i < 8; ++i) {
          x[i] = _mm256_aesdec_epi128(x[i], rk[r]);
        }
      }
      for (int i = 0; i < 8; ++i) {
        x[i] = _mm256_aesdeclast_epi128(x[i], rk[rounds]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + off + 32 * i),
                            _mm256_xor_si256(x[i], shifted[i]));
      }
    }
    for (auto& k : rk) {
      k = _mm256_setzero_si256();
    }
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(next_iv), prev);
  return total;
}

}  // namespace wireseal::crypto::detail
