#pragma once
// Big- and little-endian loads and stores for wire formats: one (possibly unaligned) load or
// store and, when the wire order is not the host's, a byte swap, which both supported compilers
// turn into MOVBE or MOV+BSWAP. Unchecked: the caller has checked the bounds (hot packet paths);
// common/byte_cursor.h is the bounds-checked way to walk a message.

#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>

namespace wireseal {
namespace detail {

template <class T>
inline T byte_swap(T v) noexcept {
  if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(v));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(v));
  } else {
    static_assert(sizeof(T) == 8, "16-, 32- and 64-bit words only");
    return static_cast<T>(__builtin_bswap64(v));
  }
}

// to_endian<E> converts between host order and byte order E; it is its own inverse, so the same
// call serves loads and stores.
template <std::endian E, class T>
inline T to_endian(T v) noexcept {
  static_assert(E == std::endian::big || E == std::endian::little);
  if constexpr (E == std::endian::native) {
    return v;
  } else {
    return byte_swap(v);
  }
}

}  // namespace detail

// load<E, T> reads the T stored in byte order E at p; store<E> writes v there in byte order E.
// The named functions below (load_be32, store_le16, ...) are these with the order and width
// spelled out, as the wire formats are written.
template <std::endian E, std::unsigned_integral T>
inline T load(const std::uint8_t* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof(v));
  return detail::to_endian<E>(v);
}

template <std::endian E, std::unsigned_integral T>
inline void store(std::uint8_t* p, T v) noexcept {
  v = detail::to_endian<E>(v);
  std::memcpy(p, &v, sizeof(v));
}

inline std::uint16_t load_be16(const std::uint8_t* p) noexcept {
  return load<std::endian::big, std::uint16_t>(p);
}
inline std::uint32_t load_be32(const std::uint8_t* p) noexcept {
  return load<std::endian::big, std::uint32_t>(p);
}
inline std::uint64_t load_be64(const std::uint8_t* p) noexcept {
  return load<std::endian::big, std::uint64_t>(p);
}
// The odd widths (24 bits: TLS/DTLS handshake lengths; 48 bits: DTLS sequence numbers) are
// assembled from the even ones.
inline std::uint32_t load_be24(const std::uint8_t* p) noexcept {
  return std::uint32_t{p[0]} << 16 | load_be16(p + 1);
}
inline std::uint64_t load_be48(const std::uint8_t* p) noexcept {
  return std::uint64_t{load_be16(p)} << 32 | load_be32(p + 2);
}
inline void store_be16(std::uint8_t* p, std::uint16_t v) noexcept { store<std::endian::big>(p, v); }
inline void store_be32(std::uint8_t* p, std::uint32_t v) noexcept { store<std::endian::big>(p, v); }
inline void store_be64(std::uint8_t* p, std::uint64_t v) noexcept { store<std::endian::big>(p, v); }
// store_be24 stores the low 24 bits of v, store_be48 the low 48.
inline void store_be24(std::uint8_t* p, std::uint32_t v) noexcept {
  p[0] = static_cast<std::uint8_t>(v >> 16);
  store_be16(p + 1, static_cast<std::uint16_t>(v));
}
inline void store_be48(std::uint8_t* p, std::uint64_t v) noexcept {
  store_be16(p, static_cast<std::uint16_t>(v >> 32));
  store_be32(p + 2, static_cast<std::uint32_t>(v));
}

// to_big_endian64 converts a 64-bit value held in a register between host order and big-endian
// order (it is its own inverse): for code that assembles wire words in registers and stores
// them whole, instead of storing field by field.
inline std::uint64_t to_big_endian64(std::uint64_t v) noexcept {
  return detail::to_endian<std::endian::big>(v);
}
inline std::uint32_t to_big_endian32(std::uint32_t v) noexcept {
  return detail::to_endian<std::endian::big>(v);
}

inline std::uint16_t load_le16(const std::uint8_t* p) noexcept {
  return load<std::endian::little, std::uint16_t>(p);
}
inline std::uint32_t load_le32(const std::uint8_t* p) noexcept {
  return load<std::endian::little, std::uint32_t>(p);
}
inline std::uint64_t load_le64(const std::uint8_t* p) noexcept {
  return load<std::endian::little, std::uint64_t>(p);
}
inline void store_le16(std::uint8_t* p, std::uint16_t v) noexcept {
  store<std::endian::little>(p, v);
}
inline void store_le32(std::uint8_t* p, std::uint32_t v) noexcept {
  store<std::endian::little>(p, v);
}
inline void store_le64(std::uint8_t* p, std::uint64_t v) noexcept {
  store<std::endian::little>(p, v);
}

}  // namespace wireseal
