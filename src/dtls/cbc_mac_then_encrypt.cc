// Constant-time MAC-then-encrypt record check (the Lucky Thirteen countermeasures).
//
// After CBC decryption the record is plaintext | MAC | padding, and the padding length is
// secret until the MAC verifies. Everything below therefore runs the same instruction and
// memory-access sequence whatever the padding byte says:
//  - the padding is checked over the largest possible padding span with masks;
//  - the MAC is computed over the plaintext the padding implies, and then the hash is fed the
//    extra compression-function blocks that the longest possible plaintext would have needed,
//    so the number of compressions is constant (the s2n approach);
//  - the received MAC is extracted from its secret offset by a masked scan and a log-step
//    rotation, never by indexing with the secret;
//  - one result: padding and MAC failures are indistinguishable (both kAuthFailed).
#include <cstring>

#include "common/bytes.h"
#include "common/ct.h"
#include "dtls/record_crypto.h"

namespace wireseal::dtls::detail {
namespace {

using wireseal::detail::ct_mask_eq;
using wireseal::detail::ct_mask_ge;
using wireseal::detail::ct_mask_lt;

// compression_blocks is how many compression-function calls a Merkle–Damgård hash makes for
// a message of `len` bytes (final padding: one 0x80 byte and an 8- or 16-byte length).
std::size_t compression_blocks(std::size_t len, std::size_t block_len) noexcept {
  const std::size_t length_field = block_len == 128 ? 16 : 8;
  return (len + 1 + length_field + block_len - 1) / block_len;
}

// extract_mac copies data[mac_start, mac_start + mac_len) into `out` without a memory access
// that depends on the secret mac_start, which lies in [scan_start, data.size() - mac_len].
void extract_mac(std::span<const std::uint8_t> data, std::size_t mac_start, std::size_t mac_len,
                 std::size_t scan_start, std::uint8_t* out) noexcept {
  std::uint8_t rotated[crypto::kMaxDigestLength] = {};
  std::size_t rotate_offset = 0;
  std::size_t j = 0;
  for (std::size_t i = scan_start; i < data.size(); ++i) {
    rotate_offset |= j & ct_mask_eq(i, mac_start);
    const std::size_t in_mac = ct_mask_ge(i, mac_start) & ct_mask_lt(i, mac_start + mac_len);
    rotated[j] = static_cast<std::uint8_t>(rotated[j] | (data[i] & in_mac));
    if (++j == mac_len) {
      j = 0;
    }
  }
  // Rotate left by rotate_offset one bit of the offset at a time. The buffer holds two copies
  // so that index k + shift never wraps (no division, and the indices are public).
  std::uint8_t twice[2 * crypto::kMaxDigestLength];
  for (std::size_t shift = 1, bit = 0; shift < mac_len; shift <<= 1, ++bit) {
    const std::uint8_t mask = static_cast<std::uint8_t>(0 - ((rotate_offset >> bit) & 1));
    std::memcpy(twice, rotated, mac_len);
    std::memcpy(twice + mac_len, rotated, mac_len);
    for (std::size_t k = 0; k < mac_len; ++k) {
      rotated[k] = static_cast<std::uint8_t>((twice[k + shift] & mask) | (twice[k] & ~mask));
    }
  }
  std::memcpy(out, rotated, mac_len);
}

}  // namespace

Result<std::size_t> cbc_open_mac_then_encrypt(const crypto::Hmac& hmac,
                                              std::span<const std::uint8_t> aad_prefix,
                                              std::span<const std::uint8_t> data) noexcept {
  const std::size_t mac_len = hmac.digest_len();
  const std::size_t len = data.size();
  if (len < mac_len + 1) {
    return Error::kAuthFailed;  // public: the length alone rules the record out
  }
  // Padding: the last byte says how many bytes before it share its value.
  std::size_t pad = data[len - 1];
  std::size_t good = ct_mask_ge(len, pad + 1 + mac_len);
  const std::size_t to_check = len < 256 ? len : 256;
  for (std::size_t i = 1; i < to_check; ++i) {
    const std::size_t in_pad = ct_mask_lt(i, pad + 1);
    good &= ~(in_pad & ~ct_mask_eq(data[len - 1 - i], pad));
  }
  pad &= good;  // bad padding: carry on as if there were none, so the work stays the same
  const std::size_t plaintext_len = len - mac_len - 1 - pad;

  // MAC over aad_prefix | length | plaintext.
  std::uint8_t length_bytes[2];
  store_be16(length_bytes, static_cast<std::uint16_t>(plaintext_len));
  std::uint8_t computed[crypto::kMaxDigestLength];
  crypto::HmacJob job{{aad_prefix, length_bytes, data.first(plaintext_len)}, {computed, mac_len}, {}};
  hmac.compute_batch({&job, 1});

  // Equalise the compression count with the longest plaintext this record could hold.
  const std::size_t block_len = crypto::block_length(hmac.hash());
  const std::size_t fixed = block_len + aad_prefix.size() + 2;
  const std::size_t extra = compression_blocks(fixed + len - mac_len - 1, block_len) -
                            compression_blocks(fixed + plaintext_len, block_len);
  hmac.run_dummy_blocks(extra);

  std::uint8_t received[crypto::kMaxDigestLength];
  const std::size_t scan_start = len > mac_len + 256 ? len - mac_len - 256 : 0;
  extract_mac(data, plaintext_len, mac_len, scan_start, received);
  std::uint8_t diff = 0;
  for (std::size_t i = 0; i < mac_len; ++i) {
    diff = static_cast<std::uint8_t>(diff | (computed[i] ^ received[i]));
  }
  // The fuzzing build accepts any MAC but still checks the padding.
  good &= wireseal::detail::kFuzzingAcceptsAnyTag ? ~std::size_t{0} : ct_mask_eq(diff, 0);
  WS_CT_DECLASSIFY(&good, sizeof(good));
  if (good == 0) {
    return Error::kAuthFailed;
  }
  return plaintext_len;
}

}  // namespace wireseal::dtls::detail
