#pragma once
// Big-endian loads and stores for wire formats: one (possibly unaligned) load or store and a
// byte swap, which both supported compilers turn into MOVBE or MOV+BSWAP.

#include <bit>
#include <cstdint>
#include <cstring>

namespace wireseal {
namespace detail {

template <class T>
inline T to_big_endian(T v) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    if constexpr (sizeof(T) == 2) {
      return static_cast<T>(__builtin_bswap16(v));
    } else if constexpr (sizeof(T) == 4) {
      return static_cast<T>(__builtin_bswap32(v));
    } else {
      return static_cast<T>(__builtin_bswap64(v));
    }
  } else {
    return v;
  }
}

template <class T>
inline T load_be(const std::uint8_t* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof(v));
  return to_big_endian(v);
}

template <class T>
inline void store_be(std::uint8_t* p, T v) noexcept {
  v = to_big_endian(v);
  std::memcpy(p, &v, sizeof(v));
}

}  // namespace detail

inline std::uint16_t load_be16(const std::uint8_t* p) noexcept {
  return detail::load_be<std::uint16_t>(p);
}
inline std::uint32_t load_be32(const std::uint8_t* p) noexcept {
  return detail::load_be<std::uint32_t>(p);
}
inline std::uint64_t load_be64(const std::uint8_t* p) noexcept {
  return detail::load_be<std::uint64_t>(p);
}
inline std::uint64_t load_be48(const std::uint8_t* p) noexcept {
  return std::uint64_t{load_be16(p)} << 32 | load_be32(p + 2);
}
inline void store_be16(std::uint8_t* p, std::uint16_t v) noexcept { detail::store_be(p, v); }
inline void store_be32(std::uint8_t* p, std::uint32_t v) noexcept { detail::store_be(p, v); }
inline void store_be64(std::uint8_t* p, std::uint64_t v) noexcept { detail::store_be(p, v); }
inline void store_be48(std::uint8_t* p, std::uint64_t v) noexcept {
  store_be16(p, static_cast<std::uint16_t>(v >> 32));
  store_be32(p + 2, static_cast<std::uint32_t>(v));
}

}  // namespace wireseal
