// SRTP IVs (RFC 3711 §4.1.1, RFC 7714 §8.1/§9.1) and keystream at an offset.
#include "keystream.h"

#include <algorithm>
#include <cstring>

#include "common/bytes.h"

namespace wireseal::srtp::detail {
namespace {

// add_blocks adds `n` to the 128-bit big-endian counter block.
void add_blocks(Iv16& block, std::uint64_t n) noexcept {
  for (std::size_t i = 16; i-- > 0 && n != 0;) {
    const std::uint64_t sum = block[i] + (n & 0xff);
    block[i] = static_cast<std::uint8_t>(sum);
    n = (n >> 8) + (sum >> 8);
  }
}

// gcm_iv XORs the salt with the block whose bytes 0..7 are `head` and 8..11 `tail`, both
// big-endian, as one 64-bit and one 32-bit word. Built byte by byte and then XORed as a
// vector, the block was stored in pieces and reloaded whole: a store-forwarding stall that
// cost as much as the rest of the packet's bookkeeping.
Iv12 gcm_iv(std::span<const std::uint8_t, 12> salt, std::uint64_t head,
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

}  // namespace

Iv12 gcm_rtp_iv(std::span<const std::uint8_t, 12> salt, std::uint32_t ssrc, std::uint32_t roc,
                std::uint16_t seq) noexcept {
  // 0x0000 || SSRC || ROC || SEQ
  return gcm_iv(salt, std::uint64_t{ssrc} << 16 | roc >> 16, roc << 16 | seq);
}

Iv12 gcm_rtcp_iv(std::span<const std::uint8_t, 12> salt, std::uint32_t ssrc,
                 std::uint32_t index) noexcept {
  // 0x0000 || SSRC || 0x0000 || 0 || 31-bit index
  return gcm_iv(salt, std::uint64_t{ssrc} << 16, index & 0x7fffffffu);
}

Status ctr_xor(crypto::AesCtr& ctr, const Iv16& iv, std::size_t offset,
               std::span<const std::uint8_t> in, std::span<std::uint8_t> out) noexcept {
  if (in.empty()) {
    return {};
  }
  Iv16 block = iv;
  add_blocks(block, offset / 16);
  const std::size_t skip = offset % 16;
  std::size_t done = 0;
  if (skip != 0) {
    std::uint8_t ks[16] = {};
    if (Status s = ctr.apply(block, ks, ks); !s) {
      return s;
    }
    done = std::min(16 - skip, in.size());
    for (std::size_t i = 0; i < done; ++i) {
      out[i] = static_cast<std::uint8_t>(in[i] ^ ks[skip + i]);
    }
    add_blocks(block, 1);
  }
  if (done == in.size()) {
    return {};
  }
  return ctr.apply(block, in.subspan(done), out.subspan(done));
}

}  // namespace wireseal::srtp::detail
