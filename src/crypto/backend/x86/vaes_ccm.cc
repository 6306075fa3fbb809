// VAES lockstep phase of multi-buffer AES-CCM sealing (see vaes_ccm.h). Lanes are paired into
// 256-bit registers; an odd last lane is paired with a scratch lane whose results are dropped.
#include "backend/x86/vaes_ccm.h"

#include "backend/portable/count_dispatch.h"

namespace wireseal::crypto::detail {
namespace {

inline __m256i pair(__m128i lo, __m128i hi) noexcept {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

inline __m256i load_pair(const std::uint8_t* lo, const std::uint8_t* hi) noexcept {
  return pair(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo)),
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(hi)));
}

inline void store_pair(std::uint8_t* lo, std::uint8_t* hi, __m256i v) noexcept {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(lo), _mm256_castsi256_si128(v));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(hi), _mm256_extracti128_si256(v, 1));
}

template <int R, std::size_t P>
void steps_pairs(const __m256i* rk, CcmLockstep& l, const std::uint8_t* const* src,
                 std::uint8_t* const* dst, std::size_t steps) noexcept {
  __m256i mac[P];
  __m256i base[P];
  __m256i mask[P];
  for (std::size_t p = 0; p < P; ++p) {
    mac[p] = pair(*l.mac[2 * p], *l.mac[2 * p + 1]);
    base[p] = pair(l.counter_base[2 * p], l.counter_base[2 * p + 1]);
    mask[p] = pair(l.counter_mask[2 * p], l.counter_mask[2 * p + 1]);
  }
  std::uint64_t counter = l.counter;
  for (std::size_t s = 0; s < steps; ++s) {
    ++counter;
    const long long be = static_cast<long long>(__builtin_bswap64(counter));
    const __m256i count = _mm256_set_epi64x(be, 0, be, 0);
    __m256i plain[P];
    __m256i m[P];
    __m256i k[P];
    for (std::size_t p = 0; p < P; ++p) {
      plain[p] = load_pair(src[2 * p] + 16 * s, src[2 * p + 1] + 16 * s);
      m[p] = _mm256_xor_si256(mac[p], _mm256_xor_si256(plain[p], rk[0]));
      k[p] = _mm256_xor_si256(_mm256_or_si256(base[p], _mm256_and_si256(mask[p], count)), rk[0]);
    }
    for (int r = 1; r < R; ++r) {
      for (std::size_t p = 0; p < P; ++p) {
        m[p] = _mm256_aesenc_epi128(m[p], rk[r]);
        k[p] = _mm256_aesenc_epi128(k[p], rk[r]);
      }
    }
    for (std::size_t p = 0; p < P; ++p) {
      mac[p] = _mm256_aesenclast_epi128(m[p], rk[R]);
      const __m256i c = _mm256_xor_si256(plain[p], _mm256_aesenclast_epi128(k[p], rk[R]));
      store_pair(dst[2 * p] + 16 * s, dst[2 * p + 1] + 16 * s, c);
    }
  }
  for (std::size_t p = 0; p < P; ++p) {
    *l.mac[2 * p] = _mm256_castsi256_si128(mac[p]);
    *l.mac[2 * p + 1] = _mm256_extracti128_si256(mac[p], 1);
  }
  l.counter = counter;
}

template <int R>
void run(const __m128i* rk128, CcmLockstep& l, std::size_t steps) noexcept {
  __m256i rk[static_cast<std::size_t>(R + 1)];
  for (int i = 0; i <= R; ++i) {
    rk[i] = _mm256_broadcastsi128_si256(_mm_loadu_si128(rk128 + i));
  }
  // An odd lane count gets a scratch partner: it reads the real lane's input (valid for
  // `steps` blocks) and writes into a throwaway buffer.
  alignas(32) std::uint8_t scratch_out[16 * 64];
  const std::size_t n = l.num_lanes;
  const std::uint8_t* src[8];
  std::uint8_t* dst[8];
  __m128i scratch_mac = _mm_setzero_si128();
  for (std::size_t i = 0; i < n; ++i) {
    src[i] = l.src[i];
    dst[i] = l.dst[i];
  }
  // Process in chunks of at most 64 blocks so the scratch output stays small.
  std::size_t done = 0;
  while (done < steps) {
    const std::size_t chunk = steps - done < 64 ? steps - done : 64;
    if (n % 2 != 0) {
      src[n] = src[n - 1];
      dst[n] = scratch_out;
      l.mac[n] = &scratch_mac;
      l.counter_base[n] = l.counter_base[n - 1];
      l.counter_mask[n] = l.counter_mask[n - 1];
    }
    with_count<4>((n + 1) / 2, [&](auto pairs) {
      steps_pairs<R, decltype(pairs)::value>(rk, l, src, dst, chunk);
    });
    for (std::size_t i = 0; i < n; ++i) {
      src[i] += 16 * chunk;
      dst[i] += 16 * chunk;
    }
    done += chunk;
  }
  for (std::size_t i = 0; i < n; ++i) {
    l.src[i] = src[i];
    l.dst[i] = dst[i];
  }
}

}  // namespace

void ccm_seal_steps_vaes(const void* round_keys, int rounds, CcmLockstep& lanes,
                         std::size_t steps) noexcept {
  const auto* rk = static_cast<const __m128i*>(round_keys);
  switch (rounds) {
    case 10:
      return run<10>(rk, lanes, steps);
    case 12:
      return run<12>(rk, lanes, steps);
    default:
      return run<14>(rk, lanes, steps);
  }
}

}  // namespace wireseal::crypto::detail
