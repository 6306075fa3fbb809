#pragma once
// IV construction and keystream helpers shared by SRTP, SRTCP and header encryption.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "common/bytes.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/result.h"

namespace wireseal::srtp::detail {

using Iv16 = std::array<std::uint8_t, 16>;
using Iv12 = std::array<std::uint8_t, 12>;

// kMaxAesCmKeystream is the most keystream one AES-CM packet may use: the IV's low 16 bits
// count blocks, so 2^16 blocks of 16 bytes; a longer packet would carry into the index bits
// and reuse the keystream of another packet (RFC 3711 §4.1.1).
inline constexpr std::size_t kMaxAesCmKeystream = std::size_t{1} << 20;

// cm_iv is the AES-CM counter block of RFC 3711 §4.1.1:
// IV = (k_s * 2^16) XOR (SSRC * 2^64) XOR (i * 2^16), with `salt` the 14-byte session salt and
// `index` the 48-bit SRTP index or the 31-bit SRTCP index. Inline and built as two big-endian
// 64-bit words (SSRC in bytes 4..7, index in 8..13): it runs once per packet (pion's
// BenchmarkGenerateCounter measures exactly this).
inline Iv16 cm_iv(std::span<const std::uint8_t, 14> salt, std::uint32_t ssrc,
                  std::uint64_t index) noexcept {
  std::uint64_t hi = 0;
  std::memcpy(&hi, salt.data(), 8);
  // Salt bytes 8..13 with bytes 14, 15 zero, assembled in registers: a 6-byte memcpy into a
  // zeroed word would make the next 8-byte load straddle two stores (a store-forwarding stall
  // that tripled this function's cost).
  std::uint32_t lo4 = 0;
  std::uint16_t lo2 = 0;
  std::memcpy(&lo4, salt.data() + 8, 4);
  std::memcpy(&lo2, salt.data() + 12, 2);
  std::uint64_t lo = 0;
  if constexpr (std::endian::native == std::endian::little) {
    lo = std::uint64_t{lo4} | std::uint64_t{lo2} << 32;
  } else {
    lo = std::uint64_t{lo4} << 32 | std::uint64_t{lo2} << 16;
  }
  hi ^= to_big_endian64(ssrc);
  lo ^= to_big_endian64(index << 16);
  Iv16 iv;
  std::memcpy(iv.data(), &hi, 8);
  std::memcpy(iv.data() + 8, &lo, 8);
  return iv;
}

// gcm_iv XORs the salt with the block whose bytes 0..7 are `head` and 8..11 `tail`, both
// big-endian, as one 64-bit and one 32-bit word. Built byte by byte and then XORed as a
// vector, the block was stored in pieces and reloaded whole: a store-forwarding stall that
// cost as much as the rest of the packet's bookkeeping.
inline Iv12 gcm_iv(std::span<const std::uint8_t, 12> salt, std::uint64_t head,
                   std::uint32_t tail) noexcept {
  std::uint64_t h = 0;
  std::uint32_t t = 0;
  std::memcpy(&h, salt.data(), 8);
  std::memcpy(&t, salt.data() + 8, 4);
  h ^= to_big_endian64(head);
  t ^= to_big_endian32(tail);
  Iv12 iv;
  std::memcpy(iv.data(), &h, 8);
  std::memcpy(iv.data() + 8, &t, 4);
  return iv;
}

// gcm_rtp_iv is RFC 7714 §8.1: (0x0000 || SSRC || ROC || SEQ) XOR salt. (Inline, as cm_iv:
// one per packet.)
inline Iv12 gcm_rtp_iv(std::span<const std::uint8_t, 12> salt, std::uint32_t ssrc,
                       std::uint32_t roc, std::uint16_t seq) noexcept {
  return gcm_iv(salt, std::uint64_t{ssrc} << 16 | roc >> 16, roc << 16 | seq);
}

// gcm_rtcp_iv is RFC 7714 §9.1: (0x0000 || SSRC || 0x0000 || 0 || SRTCP index) XOR salt.
inline Iv12 gcm_rtcp_iv(std::span<const std::uint8_t, 12> salt, std::uint32_t ssrc,
                        std::uint32_t index) noexcept {
  return gcm_iv(salt, std::uint64_t{ssrc} << 16, index & 0x7fffffffu);
}

// ctr_xor XORs `in` with the AES-CM keystream starting `offset` bytes into the keystream of
// counter block `iv`, writing `out` (identical to `in` or disjoint). Lets header encryption
// and cryptex pick up the keystream mid-block without materialising it.
Status ctr_xor(crypto::AesCtr& ctr, const Iv16& iv, std::size_t offset,
               std::span<const std::uint8_t> in, std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::srtp::detail
