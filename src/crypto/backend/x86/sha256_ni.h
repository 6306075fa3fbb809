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

// sha256_compress_ni_keep is sha256_compress_ni that also ORs the state after block b, masked
// by keep[b] (all ones or zero), into `kept` (h0..h7): the constant-time MAC-then-encrypt
// check keeps the state after a secret final block this way without leaving the kernel
// between blocks (the state stays in registers).
void sha256_compress_ni_keep(std::uint32_t state[8], const std::uint8_t* blocks,
                             std::size_t num_blocks, const std::uint32_t* keep,
                             std::uint32_t kept[8]) noexcept;

// sha256_compress_ni_x2 compresses one block for each of 2 independent states at once.
void sha256_compress_ni_x2(std::uint32_t* const states[2],
                           const std::uint8_t* const blocks[2]) noexcept;

}  // namespace wireseal::crypto::detail
