#pragma once
// Hex helpers for tests and vector files.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wireseal::test {

// from_hex decodes a hex string (whitespace ignored); throws std::invalid_argument on bad input.
std::vector<std::uint8_t> from_hex(std::string_view hex);
// to_hex encodes bytes as lowercase hex.
std::string to_hex(std::span<const std::uint8_t> bytes);

}  // namespace wireseal::test
