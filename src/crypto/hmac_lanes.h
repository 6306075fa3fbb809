#pragma once
// Multi-buffer HMAC over SHA-NI (SHA-1 and SHA-256), used by Hmac::compute_batch and, through
// it, by SRTP and DTLS CBC batches. Internal to the crypto module.

#include <cstddef>
#include <cstdint>

#include "wireseal/crypto/hmac.h"

namespace wireseal::crypto::detail {

// hmac_sha1_lanes / hmac_sha256_lanes compute the jobs' MACs from the key's precomputed inner
// and outer chaining values (the hash state after the ipad / opad block). Jobs must have valid
// out spans (1..digest length bytes).
void hmac_sha1_lanes(const std::uint32_t inner[5], const std::uint32_t outer[5],
                     HmacJob* const* jobs, std::size_t num_jobs) noexcept;
void hmac_sha256_lanes(const std::uint32_t inner[8], const std::uint32_t outer[8],
                       HmacJob* const* jobs, std::size_t num_jobs) noexcept;

// hmac_sha1_short / hmac_sha256_short compute the MAC of a message of at most 55 bytes (one
// inner block including padding) with no block assembly machinery: the 16..55-byte packets of
// SRTP, DTLS and signing live here.
void hmac_sha1_short(const std::uint32_t inner[5], const std::uint32_t outer[5],
                     std::span<const std::uint8_t> message, std::span<std::uint8_t> out) noexcept;
void hmac_sha256_short(const std::uint32_t inner[8], const std::uint32_t outer[8],
                       std::span<const std::uint8_t> message, std::span<std::uint8_t> out) noexcept;
inline constexpr std::size_t kHmacShortMax = 55;

}  // namespace wireseal::crypto::detail
