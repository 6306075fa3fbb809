#pragma once
// AES-CTR with VAES on 256-bit registers (two blocks per register, eight blocks in flight).
// Defined in vaes_ctr.cc, which is compiled with -mvaes -mavx2; call only when
// features().vaes && features().avx2.

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

// ctr_blocks_vaes encrypts the largest multiple of 8 whole blocks of `len` bytes, with round
// keys `round_keys` (rounds + 1 blocks of 16 bytes) and the 128-bit big-endian counter starting
// at `counter_block`, XORing into `out`. The caller guarantees that the low 64 bits of the
// counter do not wrap within `len`. Returns the number of bytes processed.
std::size_t ctr_blocks_vaes(const void* round_keys, int rounds, const std::uint8_t* counter_block,
                            const std::uint8_t* in, std::uint8_t* out, std::size_t len) noexcept;

}  // namespace wireseal::crypto::detail
