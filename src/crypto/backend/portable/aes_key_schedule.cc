#include "backend/portable/aes_key_schedule.h"

#include <cstring>

namespace wireseal::crypto::detail {
namespace {

// gf_mul multiplies in GF(2^8) without a branch on either operand: the key expansion feeds
// it key bytes.
std::uint8_t gf_mul(std::uint8_t a, std::uint8_t b) noexcept {
  std::uint8_t p = 0;
  for (int i = 0; i < 8; ++i) {
    p = static_cast<std::uint8_t>(p ^ (a & -(b & 1)));
    const auto carry = static_cast<std::uint8_t>(-(a >> 7));
    a = static_cast<std::uint8_t>((a << 1) ^ (0x1b & carry));
    b = static_cast<std::uint8_t>(b >> 1);
  }
  return p;
}

std::uint8_t rotl8(std::uint8_t x, int n) noexcept {
  return static_cast<std::uint8_t>((x << n) | (x >> (8 - n)));
}

// sbox computes the AES S-box from its definition (multiplicative inverse in GF(2^8), then the
// affine map), so no 256-entry table has to be transcribed, and no table lookup indexed by a
// key byte leaks it through the cache. x^254 is x^-1 for x != 0 and 0 for x = 0, as AES wants;
// the square-and-multiply chain depends only on the public exponent.
std::uint8_t sbox(std::uint8_t x) noexcept {
  std::uint8_t inv = 1;
  std::uint8_t base = x;
  for (int e = 254; e > 0; e >>= 1) {
    if ((e & 1) != 0) {
      inv = gf_mul(inv, base);
    }
    base = gf_mul(base, base);
  }
  return static_cast<std::uint8_t>(inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^
                                   rotl8(inv, 4) ^ 0x63);
}

}  // namespace

bool expand_aes_key(const std::uint8_t* key, std::size_t key_len, AesRoundKeys& out) noexcept {
  if (key_len != 16 && key_len != 24 && key_len != 32) {
    return false;
  }
  const std::size_t nk = key_len / 4;
  const std::size_t nr = nk + 6;
  const std::size_t total_words = 4 * (nr + 1);
  std::uint8_t w[60][4];
  std::memcpy(w, key, key_len);
  std::uint8_t rcon = 1;
  for (std::size_t i = nk; i < total_words; ++i) {
    std::uint8_t t[4] = {w[i - 1][0], w[i - 1][1], w[i - 1][2], w[i - 1][3]};
    if (i % nk == 0) {
      const std::uint8_t first = t[0];
      t[0] = static_cast<std::uint8_t>(sbox(t[1]) ^ rcon);
      t[1] = sbox(t[2]);
      t[2] = sbox(t[3]);
      t[3] = sbox(first);
      rcon = gf_mul(rcon, 2);
    } else if (nk > 6 && i % nk == 4) {
      for (std::uint8_t& b : t) {
        b = sbox(b);
      }
    }
    for (int b = 0; b < 4; ++b) {
      w[i][b] = static_cast<std::uint8_t>(w[i - nk][b] ^ t[b]);
    }
  }
  std::memcpy(out.bytes, w, total_words * 4);
  out.rounds = static_cast<int>(nr);
  std::memset(w, 0, sizeof(w));
  return true;
}

}  // namespace wireseal::crypto::detail
