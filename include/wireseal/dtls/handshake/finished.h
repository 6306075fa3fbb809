#pragma once
// Finished (RFC 5246 §7.4.9): verify_data = PRF(master_secret, label, Hash(handshake))[0..11].
// Every DTLS 1.2 cipher suite uses the default verify_data_length of 12.

#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::dtls {

inline constexpr std::size_t kVerifyDataSize = 12;

// parse_finished returns the verify_data (a view of the body); kMalformed unless the body is
// exactly 12 bytes. The caller compares it in constant time.
Result<std::span<const std::uint8_t>> parse_finished(std::span<const std::uint8_t> body) noexcept;

}  // namespace wireseal::dtls
