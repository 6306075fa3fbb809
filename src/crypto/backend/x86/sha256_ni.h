#pragma once
// SHA-256 compression with the x86 SHA extensions (SHA-NI), one lane or two interleaved.
// Defined in sha256_ni.cc, compiled with -msha -msse4.1. Reached only through the kernel table
// (native_sha_kernels(), backend/native.h), which holds them only when features().sha_ni.

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

// sha256_compress_ni runs `num_blocks` 64-byte blocks through the compression function,
// updating `state` (h0..h7).
void sha256_compress_ni(std::uint32_t state[8], const std::uint8_t* blocks,
                        std::size_t num_blocks) noexcept;

// sha256_compress_ni_x2 compresses one block for each of 2 independent states at once.
void sha256_compress_ni_x2(std::uint32_t* const states[2],
                           const std::uint8_t* const blocks[2]) noexcept;

}  // namespace wireseal::crypto::detail
