#pragma once
// Constant-time helpers and secure wiping, shared by every module.

#include <cstddef>
#include <cstdint>
#include <span>

namespace wireseal::detail {

// ct_equal compares two equal-length byte ranges without an early exit, so the time taken
// does not reveal where the first difference is. Different lengths compare unequal (the
// lengths themselves are public).
bool ct_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) noexcept;

// secure_wipe zeroes `bytes` in a way the optimiser may not remove (keys, plaintext on failure).
void secure_wipe(void* bytes, std::size_t len) noexcept;

// overlaps_partially is true when [a, a+a_len) and [b, b+b_len) share bytes but do not start
// at the same address: the one aliasing that in-place kernels cannot handle.
inline bool overlaps_partially(const std::uint8_t* a, std::size_t a_len, const std::uint8_t* b,
                               std::size_t b_len) noexcept {
  if (a == b || a_len == 0 || b_len == 0) {
    return false;
  }
  return a < b + b_len && b < a + a_len;
}

// overlaps is true when the two ranges share any byte.
inline bool overlaps(const std::uint8_t* a, std::size_t a_len, const std::uint8_t* b,
                     std::size_t b_len) noexcept {
  return a_len != 0 && b_len != 0 && a < b + b_len && b < a + a_len;
}

}  // namespace wireseal::detail
