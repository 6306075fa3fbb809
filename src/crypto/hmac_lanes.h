#pragma once
// HMAC-SHA1/SHA-256 on the native backend's compression kernels (the kernel table,
// backend/native.h): single short messages, and multi-buffer batches used by
// Hmac::compute_batch and, through it, by SRTP and DTLS CBC batches. Internal to the crypto
// module.

#include <cstddef>
#include <cstdint>

#include "backend/native.h"
#include "wireseal/crypto/hmac.h"

namespace wireseal::crypto::detail {

// HmacKernels are one hash's compression kernels from the table: compress and compress_x2
// always set (an Hmac on Backend::kNative holds them from its construction on), compress_x16
// when the table's batch plan `lanes` is HmacLanes::kSixteen.
struct HmacKernels {
  ShaKernels::Compress compress;
  ShaKernels::CompressX2 compress_x2;
  ShaKernels::CompressX16 compress_x16;
  HmacLanes lanes;
};

// hmac_kernels returns the table's kernels for `hash` (kSha1 or kSha256).
HmacKernels hmac_kernels(const ShaKernels& table, HashAlgorithm hash) noexcept;

// hmac_sha1_lanes / hmac_sha256_lanes compute the jobs' MACs from the key's precomputed inner
// and outer chaining values (the hash state after the ipad / opad block). Jobs must have valid
// out spans (1..digest length bytes).
void hmac_sha1_lanes(const HmacKernels& sha1, const std::uint32_t inner[5],
                     const std::uint32_t outer[5], HmacJob* const* jobs,
                     std::size_t num_jobs) noexcept;
void hmac_sha256_lanes(const HmacKernels& sha256, const std::uint32_t inner[8],
                       const std::uint32_t outer[8], HmacJob* const* jobs,
                       std::size_t num_jobs) noexcept;

// BlockRunHook takes over the runs of whole blocks that lie in place in a message's parts:
// run(context, state, blocks, count) must compress the `count` blocks at `blocks` into `state`,
// and may do other work beside them (the stitched CBC kernels run an AES chain, cbc_hmac.cc).
struct BlockRunHook {
  void (*run)(void* context, std::uint32_t* state, const std::uint8_t* blocks,
              std::size_t count) noexcept = nullptr;
  void* context = nullptr;
};

// hmac_sha1_one / hmac_sha256_one compute one job's MAC on the single-lane kernel, as the
// _lanes functions do for one job, with each run of whole in-place blocks handed to `hook`.
void hmac_sha1_one(const HmacKernels& sha1, const std::uint32_t inner[5],
                   const std::uint32_t outer[5], HmacJob& job, BlockRunHook hook) noexcept;
void hmac_sha256_one(const HmacKernels& sha256, const std::uint32_t inner[8],
                     const std::uint32_t outer[8], HmacJob& job, BlockRunHook hook) noexcept;

// hmac_sha1_short / hmac_sha256_short compute the MAC of a message of at most 55 bytes (one
// inner block including padding) with no block assembly machinery: the 16..55-byte packets of
// SRTP, DTLS and signing live here.
void hmac_sha1_short(ShaKernels::Compress sha1, const std::uint32_t inner[5],
                     const std::uint32_t outer[5], std::span<const std::uint8_t> message,
                     std::span<std::uint8_t> out) noexcept;
void hmac_sha256_short(ShaKernels::Compress sha256, const std::uint32_t inner[8],
                       const std::uint32_t outer[8], std::span<const std::uint8_t> message,
                       std::span<std::uint8_t> out) noexcept;
inline constexpr std::size_t kHmacShortMax = 55;

// finish_outer_block completes the outer hash's single block of HMAC-SHA1/SHA-256, whose first
// `digest_len` bytes hold the inner digest: 0x80, zeros, and the bit length of the opad block
// and the digest.
void finish_outer_block(std::uint8_t block[64], std::size_t digest_len) noexcept;

}  // namespace wireseal::crypto::detail
