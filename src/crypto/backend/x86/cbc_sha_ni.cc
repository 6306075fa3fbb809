// AES-CBC encryption stitched with SHA-NI compression (see cbc_sha_ni.h).
//
// One step is a 64-byte hash block and four AES blocks. The hash's rounds run as groups of four
// (16 for SHA-256, 20 for SHA-1, as in the compression kernels); the AES chain's 4R rounds
// (R = 10, 12 or 14) are spread evenly over those groups as "ticks", so that each stretch of
// code carries a few instructions of both chains and the scheduler always has independent
// work. Everything is unrolled by templates: the tick and group indices are constants.
#include "backend/x86/cbc_sha_ni.h"

#include <utility>

#include "backend/portable/count_dispatch.h"
#include "backend/x86/aesni.h"
#include "backend/x86/sha1_ni_rounds.h"
#include "backend/x86/sha256_ni_rounds.h"
#include "backend/x86/sha_ni_lanes.h"

namespace wireseal::crypto::detail {
namespace {

using aesni::load;
using aesni::RoundKeys;
using aesni::store;

// CbcStep is the AES side of one step: four blocks of one CBC chain.
template <int R>
struct CbcStep {
  const RoundKeys<R>& rk;
  __m128i x;     // the previous ciphertext block, then the block being encrypted
  __m128i p[4];  // this step's plaintext blocks, already XORed with round key 0
  std::uint8_t* out;
};

// tick<T> is round T % R + 1 of block T / R. As in the serial CBC kernel, the next block of the
// step is folded into this block's last round key (aesenclast(x, k ^ p) = aesenclast(x, k) ^ p),
// so the chain carries nothing but AES rounds; the ciphertext is recovered off the chain. The
// step's first block starts from the previous ciphertext, XORed in.
template <int R, int T>
[[gnu::always_inline]] inline void tick(CbcStep<R>& s) noexcept {
  constexpr int kBlock = T / R;
  constexpr int kRound = T % R + 1;
  if constexpr (kRound == 1 && kBlock == 0) {
    s.x = _mm_xor_si128(s.x, s.p[0]);
  }
  if constexpr (kRound < R) {
    s.x = _mm_aesenc_si128(s.x, s.rk.k[kRound]);
  } else if constexpr (kBlock < 3) {
    const __m128i next = s.p[kBlock + 1];
    s.x = _mm_aesenclast_si128(s.x, _mm_xor_si128(s.rk.k[R], next));
    store(s.out + 16 * kBlock, _mm_xor_si128(s.x, next));
  } else {
    s.x = _mm_aesenclast_si128(s.x, s.rk.k[R]);
    store(s.out + 16 * kBlock, s.x);
  }
}

template <int R, int First, int... I>
[[gnu::always_inline]] inline void ticks(CbcStep<R>& s, std::integer_sequence<int, I...>) noexcept {
  (tick<R, First + I>(s), ...);
}

// group_and_ticks runs hash group G and the AES ticks that fall to it: of the step's 4R ticks,
// group G takes [4R G / kGroups, 4R (G + 1) / kGroups).
template <class Sha, int R, int G>
[[gnu::always_inline]] inline void group_and_ticks(typename Sha::Lane& lane,
                                                   CbcStep<R>& s) noexcept {
  constexpr int kFirst = 4 * R * G / Sha::kGroups;
  constexpr int kEnd = 4 * R * (G + 1) / Sha::kGroups;
  Sha::template group<G>(lane);
  ticks<R, kFirst>(s, std::make_integer_sequence<int, kEnd - kFirst>{});
}

// step runs one step's groups, each with its ticks (function templates rather than lambdas,
// which GCC may leave out of line, as sha_ni_lanes.h says).
template <class Sha, int R, int... G>
[[gnu::always_inline]] inline void step(typename Sha::Lane& lane, CbcStep<R>& s,
                                        std::integer_sequence<int, G...>) noexcept {
  (group_and_ticks<Sha, R, G>(lane, s), ...);
}

template <class Sha, int R>
void run(const __m128i* round_keys, std::uint8_t chain[16], const std::uint8_t* in,
         std::uint8_t* out, std::uint32_t* state, const std::uint8_t* blocks,
         std::size_t steps) noexcept {
  const RoundKeys<R> rk(round_keys);
  typename Sha::Lane lane;
  Sha::load_state(lane, state);
  CbcStep<R> s{rk, load(chain), {}, out};
  for (std::size_t j = 0; j < steps; ++j) {
    // Every load of the step before its first store: the hashed block may overlap the
    // ciphertext this step writes.
    load_block<Sha>(lane, blocks + 64 * j);
    for (int b = 0; b < 4; ++b) {
      s.p[b] = _mm_xor_si128(load(in + 64 * j + 16 * b), rk.k[0]);
    }
    s.out = out + 64 * j;
    step<Sha, R>(lane, s, std::make_integer_sequence<int, Sha::kGroups>{});
  }
  store(chain, s.x);
  Sha::store_state(lane, state);
}

template <class Sha>
void run_rounds(const void* round_keys, int rounds, std::uint8_t chain[16], const std::uint8_t* in,
                std::uint8_t* out, std::uint32_t* state, const std::uint8_t* blocks,
                std::size_t steps) noexcept {
  const auto* rk = static_cast<const __m128i*>(round_keys);
  with_rounds(rounds, [&](auto r) {
    run<Sha, decltype(r)::value>(rk, chain, in, out, state, blocks, steps);
  });
}

}  // namespace

void cbc_encrypt_sha1_ni(const void* round_keys, int rounds, std::uint8_t chain[16],
                         const std::uint8_t* in, std::uint8_t* out, std::uint32_t state[5],
                         const std::uint8_t* blocks, std::size_t steps) noexcept {
  run_rounds<Sha1Rounds>(round_keys, rounds, chain, in, out, state, blocks, steps);
}

void cbc_encrypt_sha256_ni(const void* round_keys, int rounds, std::uint8_t chain[16],
                           const std::uint8_t* in, std::uint8_t* out, std::uint32_t state[8],
                           const std::uint8_t* blocks, std::size_t steps) noexcept {
  run_rounds<Sha256Rounds>(round_keys, rounds, chain, in, out, state, blocks, steps);
}

}  // namespace wireseal::crypto::detail
