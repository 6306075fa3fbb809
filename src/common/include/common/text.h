#pragma once
// Small text helpers for the parsers of human-written input (hex keys, fingerprints, names
// typed on a command line): no locale, no allocation.

#include <string_view>

namespace wireseal::detail {

// hex_digit is the value of one hexadecimal digit (either case), or -1.
constexpr int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

// equal_ignoring_case compares ASCII text without regard to letter case.
constexpr bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace wireseal::detail
