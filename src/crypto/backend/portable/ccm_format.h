#pragma once
// CCM's formatting (NIST SP 800-38C, Appendix A; RFC 3610) as bytes: the first MAC block B0,
// the counter block A0 and the AAD's length prefix. Every architecture's CCM kernel loads these
// into its own vector type; the cipher work is the kernel's.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace wireseal::crypto::detail::ccm {

// format_b0 writes B0 (A.2.1): flags (Adata, M' = (t - 2) / 2, L' = q - 1), the nonce, and the
// message length in the last q = 15 - nonce_len bytes.
inline void format_b0(std::uint8_t* b0, const std::uint8_t* nonce, std::size_t nonce_len,
                      std::size_t tag_len, std::size_t aad_len, std::size_t msg_len) noexcept {
  const std::size_t q = 15 - nonce_len;
  std::memset(b0, 0, 16);
  b0[0] =
      static_cast<std::uint8_t>((aad_len == 0 ? 0 : 0x40) | (((tag_len - 2) / 2) << 3) | (q - 1));
  std::memcpy(b0 + 1, nonce, nonce_len);
  for (std::size_t k = 0; k < q && k < 8; ++k) {
    b0[15 - k] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(msg_len) >> (8 * k));
  }
}

// format_a0 writes the counter block A0 (A.3): flags (L' = q - 1), the nonce, and a zero count.
// A_i is A0 with i, big-endian, in its last q bytes; payload block j (from 0) uses A_{j+1} and
// the tag is masked with E(K, A0).
inline void format_a0(std::uint8_t* a0, const std::uint8_t* nonce, std::size_t nonce_len) noexcept {
  std::memset(a0, 0, 16);
  a0[0] = static_cast<std::uint8_t>(15 - nonce_len - 1);
  std::memcpy(a0 + 1, nonce, nonce_len);
}

// format_aad_length writes the AAD length's encoding (A.2.2: 2, 6 or 10 bytes) at `first`, the
// start of the first AAD block, and returns its size.
inline std::size_t format_aad_length(std::uint8_t* first, std::uint64_t aad_len) noexcept {
  if (aad_len < 0xff00) {
    first[0] = static_cast<std::uint8_t>(aad_len >> 8);
    first[1] = static_cast<std::uint8_t>(aad_len);
    return 2;
  }
  const bool fits_32 = aad_len <= 0xffffffffULL;
  const int width = fits_32 ? 4 : 8;
  first[0] = 0xff;
  first[1] = fits_32 ? 0xfe : 0xff;
  for (int k = 0; k < width; ++k) {
    first[2 + k] = static_cast<std::uint8_t>(aad_len >> (8 * (width - 1 - k)));
  }
  return 2 + static_cast<std::size_t>(width);
}

}  // namespace wireseal::crypto::detail::ccm
