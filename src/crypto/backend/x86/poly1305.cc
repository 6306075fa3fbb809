// Poly1305's key set-up, padding and final reduction (poly1305.h; the block function is inline
// there so the ChaCha20 kernel can interleave it with its rounds).
#include "backend/x86/poly1305.h"

#include <cstring>

#include "common/ct.h"

namespace wireseal::crypto::detail {

Poly1305::Poly1305(const std::uint8_t key[32]) noexcept
    : st_{load_le64(key) & 0x0ffffffc0fffffffULL,
          load_le64(key + 8) & 0x0ffffffc0ffffffcULL,
          0,
          0,
          0,
          0,
          load_le64(key + 16),
          load_le64(key + 24)} {
  st_.s1 = st_.r1 + (st_.r1 >> 2);
}

Poly1305::~Poly1305() { wireseal::detail::secure_wipe(&st_, sizeof(st_)); }

void Poly1305::update_padded(const std::uint8_t* data, std::size_t len) noexcept {
  const std::size_t whole = len / 16;
  if (whole != 0) {
    poly1305_blocks(st_, data, whole);
  }
  const std::size_t rest = len % 16;
  if (rest != 0) {
    std::uint8_t last[16] = {};
    std::memcpy(last, data + 16 * whole, rest);
    poly1305_blocks(st_, last, 1);
  }
}

void Poly1305::update_lengths(std::uint64_t aad_len, std::uint64_t text_len) noexcept {
  std::uint8_t block[16];
  store_le64(block, aad_len);
  store_le64(block + 8, text_len);
  poly1305_blocks(st_, block, 1);
}

void Poly1305::finish(std::uint8_t tag[16]) noexcept {
  using u128 = Poly1305Wide;
  // Full reduction: g = h + 5 - 2^130 = h - p; keep it when not negative (bit 130 of h + 5
  // set), selected by mask. h < 2^130 + 2^128, so one subtraction is enough.
  u128 t = u128{st_.h0} + 5;
  const auto g0 = static_cast<std::uint64_t>(t);
  t = u128{st_.h1} + static_cast<std::uint64_t>(t >> 64);
  const auto g1 = static_cast<std::uint64_t>(t);
  const std::uint64_t g2 = st_.h2 + static_cast<std::uint64_t>(t >> 64);
  const std::uint64_t use_g = 0 - (g2 >> 2);
  const std::uint64_t m0 = (st_.h0 & ~use_g) | (g0 & use_g);
  const std::uint64_t m1 = (st_.h1 & ~use_g) | (g1 & use_g);
  // tag = (h + s) mod 2^128
  t = u128{m0} + st_.pad0;
  store_le64(tag, static_cast<std::uint64_t>(t));
  store_le64(tag + 8, m1 + st_.pad1 + static_cast<std::uint64_t>(t >> 64));
}

}  // namespace wireseal::crypto::detail
