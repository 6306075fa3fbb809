#pragma once
// SHA-1 and SHA-256 compression with the ARMv8 Cryptography Extensions (SHA1C/P/M/H/SU0/SU1,
// SHA256H/H2/SU0/SU1), on aarch64 and on AArch32 cores that have them. Defined in sha1_ce.cc
// and sha256_ce.cc, compiled for the crypto extensions (src/CMakeLists.txt); reached only
// through the kernel table (native_sha_kernels(), backend/native.h), which holds them only
// when features().sha1 / .sha2. The layouts are backend/native.h's ShaKernels.

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

void sha1_compress_ce(std::uint32_t* state, const std::uint8_t* blocks,
                      std::size_t num_blocks) noexcept;
// The _x2 forms interleave two independent states, one block each: SHA1C/SHA256H have a
// latency of several cycles on in-order cores, which the second chain fills.
void sha1_compress_ce_x2(std::uint32_t* const* states, const std::uint8_t* const* blocks) noexcept;

void sha256_compress_ce(std::uint32_t* state, const std::uint8_t* blocks,
                        std::size_t num_blocks) noexcept;
void sha256_compress_ce_x2(std::uint32_t* const* states,
                           const std::uint8_t* const* blocks) noexcept;

}  // namespace wireseal::crypto::detail
