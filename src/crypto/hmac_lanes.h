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

}  // namespace wireseal::crypto::detail
