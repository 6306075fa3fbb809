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

// Constant-time masks: all ones when the condition holds, zero otherwise, without branches.
// Inputs must be below 2^63 (record lengths and offsets always are).
inline std::size_t ct_mask_lt(std::size_t a, std::size_t b) noexcept {
  return std::size_t{0} - ((a - b) >> (8 * sizeof(std::size_t) - 1));
}
inline std::size_t ct_mask_ge(std::size_t a, std::size_t b) noexcept { return ~ct_mask_lt(a, b); }
inline std::size_t ct_mask_eq(std::size_t a, std::size_t b) noexcept {
  return ct_mask_ge(a, b) & ct_mask_ge(b, a);
}
inline std::size_t ct_select(std::size_t mask, std::size_t a, std::size_t b) noexcept {
  return (mask & a) | (~mask & b);
}

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
