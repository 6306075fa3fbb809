#include "support/hex.h"

#include <cctype>
#include <stdexcept>

#include "common/text.h"

namespace wireseal::test {
namespace {

int nibble(char c) {
  const int n = detail::hex_digit(c);
  if (n < 0) {
    throw std::invalid_argument("bad hex digit");
  }
  return n;
}

}  // namespace

std::vector<std::uint8_t> from_hex(std::string_view hex) {
  std::vector<std::uint8_t> out;
  int high = -1;
  for (char c : hex) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      continue;
    }
    const int n = nibble(c);
    if (high < 0) {
      high = n;
    } else {
      out.push_back(static_cast<std::uint8_t>(high << 4 | n));
      high = -1;
    }
  }
  if (high >= 0) {
    throw std::invalid_argument("odd number of hex digits");
  }
  return out;
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    s.push_back(kDigits[b >> 4]);
    s.push_back(kDigits[b & 15]);
  }
  return s;
}

}  // namespace wireseal::test
