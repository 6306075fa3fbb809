#pragma once
// SHA-1 and SHA-256 compression over sixteen independent messages at once, one message per
// 32-bit lane of the 512-bit registers (AVX-512F, plus AVX-512BW for the byte swap). Defined in
// sha_avx512.cc, compiled with -mavx512f -mavx512bw. Reached only through the kernel table
// (native_sha_kernels(), backend/native.h), which holds them only when both features are on.
//
// Sixteen SHA-1 chains in one register do sixteen blocks' rounds with the instructions one
// chain's rounds take, where SHA-NI's rounds are one chain's and are latency-bound: this is
// the multi-buffer HMAC of SRTP, DTLS CBC and signing batches.

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

// The state is word-major: state[16 * w + lane] is word w (h0..h4 / h0..h7) of lane `lane`.
// blocks[lane] is the lane's next 64-byte block; every pointer must be readable, including
// those of inactive lanes. Only the lanes whose bit is set in `active` are updated.
void sha1_compress_avx512_x16(std::uint32_t* state, const std::uint8_t* const* blocks,
                              std::uint32_t active) noexcept;
void sha256_compress_avx512_x16(std::uint32_t* state, const std::uint8_t* const* blocks,
                                std::uint32_t active) noexcept;

}  // namespace wireseal::crypto::detail
