#pragma once
// The lockstep phase of multi-buffer AES-CCM sealing with VAES: two messages per 256-bit
// register, so eight messages need four registers for their CBC-MAC chains and four for their
// counter blocks. Defined in vaes_ccm.cc, compiled with -mvaes -mavx2; call only when
// features().vaes && .avx2.

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

// CcmLockstep describes up to 8 messages that have all processed the same number of blocks
// (so they share the counter value `counter`) and all have at least `steps` whole blocks left.
struct CcmLockstep {
  std::size_t num_lanes;       // 1..8
  __m128i* mac[8];             // each lane's CBC-MAC chaining value (updated)
  __m128i counter_base[8];     // A_i with the counter field cleared
  __m128i counter_mask[8];     // the counter field's bytes
  std::uint64_t counter;       // i of the last counter block used (advanced)
  const std::uint8_t* src[8];  // advanced by 16 * steps
  std::uint8_t* dst[8];
};

// ccm_seal_steps_vaes runs `steps` blocks of every lane with round keys `round_keys`
// (rounds + 1 blocks): MAC ^= P, MAC = E(MAC), C = P ^ E(A_i).
void ccm_seal_steps_vaes(const void* round_keys, int rounds, CcmLockstep& lanes,
                         std::size_t steps) noexcept;

}  // namespace wireseal::crypto::detail
