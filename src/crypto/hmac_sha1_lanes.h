#pragma once
// Multi-buffer HMAC-SHA1 over SHA-NI, used by Hmac::compute_batch (and, through it, by SRTP and
// DTLS CBC batches). Internal to the crypto module.

#include <cstddef>
#include <cstdint>

#include "wireseal/crypto/hmac.h"

namespace wireseal::crypto::detail {

// hmac_sha1_lanes computes the jobs' MACs from the key's precomputed inner and outer chaining
// values (the SHA-1 state after the ipad / opad block). Jobs must have valid out spans.
void hmac_sha1_lanes(const std::uint32_t inner[5], const std::uint32_t outer[5],
                     HmacJob* const* jobs, std::size_t num_jobs) noexcept;

}  // namespace wireseal::crypto::detail
