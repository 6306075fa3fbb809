// VAES AES-CTR kernel (see vaes_ctr.h). Counters are kept byte-reversed so that the low 64
// bits can be incremented with one VPADDQ; the caller rules out a carry into the high half.
#include "backend/x86/vaes_ctr.h"

#include <immintrin.h>

namespace wireseal::crypto::detail {

std::size_t ctr_blocks_vaes(const void* round_keys, int rounds, const std::uint8_t* counter_block,
                            const std::uint8_t* in, std::uint8_t* out, std::size_t len) noexcept {
  constexpr std::size_t kGroup = 8 * 16;
  const std::size_t total = len - len % kGroup;
  if (total == 0) {
    return 0;
  }
  const __m128i* rk128 = static_cast<const __m128i*>(round_keys);
  __m256i rk[15];
  for (int i = 0; i <= rounds; ++i) {
    rk[i] = _mm256_broadcastsi128_si256(_mm_loadu_si128(rk128 + i));
  }
  const __m256i reverse = _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15,
                                           14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  // Lane 0 holds counter + 0, lane 1 counter + 1 (byte-reversed: low qword is the low 64 bits).
  const __m128i start = _mm_loadu_si128(reinterpret_cast<const __m128i*>(counter_block));
  __m256i ctr = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(start), reverse);
  ctr = _mm256_add_epi64(ctr, _mm256_setr_epi64x(0, 0, 1, 0));
  const __m256i two = _mm256_setr_epi64x(2, 0, 2, 0);
  const __m256i eight = _mm256_setr_epi64x(8, 0, 8, 0);

  for (std::size_t off = 0; off < total; off += kGroup) {
    __m256i c1 = _mm256_add_epi64(ctr, two);
    __m256i c2 = _mm256_add_epi64(c1, two);
    __m256i c3 = _mm256_add_epi64(c2, two);
    __m256i b0 = _mm256_xor_si256(_mm256_shuffle_epi8(ctr, reverse), rk[0]);
    __m256i b1 = _mm256_xor_si256(_mm256_shuffle_epi8(c1, reverse), rk[0]);
    __m256i b2 = _mm256_xor_si256(_mm256_shuffle_epi8(c2, reverse), rk[0]);
    __m256i b3 = _mm256_xor_si256(_mm256_shuffle_epi8(c3, reverse), rk[0]);
    ctr = _mm256_add_epi64(ctr, eight);
    for (int r = 1; r < rounds; ++r) {
      b0 = _mm256_aesenc_epi128(b0, rk[r]);
      b1 = _mm256_aesenc_epi128(b1, rk[r]);
      b2 = _mm256_aesenc_epi128(b2, rk[r]);
      b3 = _mm256_aesenc_epi128(b3, rk[r]);
    }
    b0 = _mm256_aesenclast_epi128(b0, rk[rounds]);
    b1 = _mm256_aesenclast_epi128(b1, rk[rounds]);
    b2 = _mm256_aesenclast_epi128(b2, rk[rounds]);
    b3 = _mm256_aesenclast_epi128(b3, rk[rounds]);
    const __m256i* src = reinterpret_cast<const __m256i*>(in + off);
    __m256i* dst = reinterpret_cast<__m256i*>(out + off);
    _mm256_storeu_si256(dst + 0, _mm256_xor_si256(b0, _mm256_loadu_si256(src + 0)));
    _mm256_storeu_si256(dst + 1, _mm256_xor_si256(b1, _mm256_loadu_si256(src + 1)));
    _mm256_storeu_si256(dst + 2, _mm256_xor_si256(b2, _mm256_loadu_si256(src + 2)));
    _mm256_storeu_si256(dst + 3, _mm256_xor_si256(b3, _mm256_loadu_si256(src + 3)));
  }
  for (auto& k : rk) {
    k = _mm256_setzero_si256();
  }
  return total;
}

}  // namespace wireseal::crypto::detail
