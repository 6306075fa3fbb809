#pragma once
// A bounds-checked reader over one handshake message, shared by the message codecs.

#include <cstddef>
#include <cstdint>
#include <span>

namespace wireseal::dtls::handshake_detail {

inline std::uint32_t load24(const std::uint8_t* p) noexcept {
  return std::uint32_t{p[0]} << 16 | std::uint32_t{p[1]} << 8 | p[2];
}
inline std::uint16_t load16(const std::uint8_t* p) noexcept {
  return static_cast<std::uint16_t>(p[0] << 8 | p[1]);
}

// Cursor reads a message front to back; every read is bounds-checked and a failed read
// leaves it failed, so parsers check ok() once at the end of a group of reads.
class Cursor {
 public:
  explicit Cursor(std::span<const std::uint8_t> bytes) noexcept : rest_(bytes) {}
  bool ok() const noexcept { return ok_; }
  bool empty() const noexcept { return rest_.empty(); }

  std::span<const std::uint8_t> take(std::size_t n) noexcept {
    if (!ok_ || n > rest_.size()) {
      ok_ = false;
      return {};
    }
    const std::span<const std::uint8_t> out = rest_.first(n);
    rest_ = rest_.subspan(n);
    return out;
  }
  std::uint16_t u16() noexcept {
    const std::span<const std::uint8_t> b = take(2);
    return ok_ ? load16(b.data()) : 0;
  }
  std::uint8_t u8() noexcept {
    const std::span<const std::uint8_t> b = take(1);
    return ok_ ? b[0] : 0;
  }
  // vector8 / vector16 take a vector with a one- or two-byte length prefix.
  std::span<const std::uint8_t> vector8() noexcept { return take(u8()); }
  std::span<const std::uint8_t> vector16() noexcept { return take(u16()); }

 private:
  std::span<const std::uint8_t> rest_;
  bool ok_ = true;
};

}  // namespace wireseal::dtls::handshake_detail
