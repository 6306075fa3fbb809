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

}  // namespace

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
