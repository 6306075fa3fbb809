#pragma once
// FuzzInput reads the decisions of a scripted fuzz target (selectors, lengths, header fields,
// byte strings) from the front of the input; FuzzScript writes them, in the same encoding, for
// the corpus generators. Reads past the end yield zeros and empty strings, so every input is a
// complete script and a mutation that shortens it only ends it early.
//
// clang's <fuzzer/FuzzedDataProvider.h> does this for libFuzzer builds, but it is not on g++'s
// include path and the replay build (g++) compiles the same targets, hence this small cursor.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace wireseal::fuzz {

// bytes_for is how many input bytes a choice among `n` values takes (so small choices stay
// one byte and mutations of one byte change one decision).
constexpr std::size_t bytes_for(std::uint64_t n) noexcept {
  std::size_t bytes = 1;
  while (bytes < sizeof(std::uint64_t) && (n - 1) >> (8 * bytes) != 0) {
    ++bytes;
  }
  return bytes;
}

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

  bool empty() const noexcept { return pos_ >= size_; }
  std::size_t remaining() const noexcept { return size_ - pos_; }

  // uint reads a `bytes`-byte big-endian unsigned value (missing bytes read as zero).
  std::uint64_t uint(std::size_t bytes) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i) {
      v = v << 8 | (empty() ? 0u : data_[pos_++]);
    }
    return v;
  }
  std::uint8_t u8() noexcept { return static_cast<std::uint8_t>(uint(1)); }
  std::uint16_t u16() noexcept { return static_cast<std::uint16_t>(uint(2)); }
  std::uint32_t u32() noexcept { return static_cast<std::uint32_t>(uint(4)); }
  std::uint64_t u64() noexcept { return uint(8); }
  bool flag() noexcept { return (u8() & 1) != 0; }

  // below returns a value in [0, n) (n > 0).
  std::size_t below(std::size_t n) noexcept {
    return static_cast<std::size_t>(uint(bytes_for(n)) % n);
  }
  // below_u64 is below for choices that need 64 bits on every target (sequence numbers).
  std::uint64_t below_u64(std::uint64_t n) noexcept { return uint(bytes_for(n)) % n; }

  // bytes returns the next min(n, remaining) bytes.
  std::span<const std::uint8_t> bytes(std::size_t n) noexcept {
    const std::size_t take = std::min(n, remaining());
    const std::span<const std::uint8_t> out(data_ + pos_, take);
    pos_ += take;
    return out;
  }

  // fill writes input bytes into `out` and, once the input runs out, a fixed pattern, so long
  // plaintexts cost the fuzzer no input bytes.
  void fill(std::span<std::uint8_t> out) noexcept {
    const std::span<const std::uint8_t> src = bytes(out.size());
    std::copy(src.begin(), src.end(), out.begin());
    for (std::size_t i = src.size(); i < out.size(); ++i) {
      out[i] = static_cast<std::uint8_t>(i * 131 + 7);
    }
  }
  std::vector<std::uint8_t> vector(std::size_t n) {
    std::vector<std::uint8_t> v(n);
    fill(v);
    return v;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// FuzzScript builds an input that a FuzzInput reads back value for value.
class FuzzScript {
 public:
  FuzzScript& uint(std::uint64_t v, std::size_t bytes) {
    for (std::size_t i = bytes; i-- > 0;) {
      bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    return *this;
  }
  FuzzScript& u8(std::uint64_t v) { return uint(v, 1); }
  FuzzScript& u16(std::uint64_t v) { return uint(v, 2); }
  FuzzScript& u32(std::uint64_t v) { return uint(v, 4); }
  FuzzScript& u64(std::uint64_t v) { return uint(v, 8); }
  FuzzScript& flag(bool v) { return uint(v ? 1 : 0, 1); }
  // below writes `v` (< n) as FuzzInput::below(n) reads it.
  FuzzScript& below(std::size_t n, std::size_t v) { return uint(v, bytes_for(n)); }
  FuzzScript& below_u64(std::uint64_t n, std::uint64_t v) { return uint(v, bytes_for(n)); }
  FuzzScript& bytes(std::span<const std::uint8_t> b) {
    bytes_.insert(bytes_.end(), b.begin(), b.end());
    return *this;
  }
  const std::vector<std::uint8_t>& data() const noexcept { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

}  // namespace wireseal::fuzz
