// Constant-time MAC-then-encrypt record check (the Lucky Thirteen countermeasures).
//
// After CBC decryption the record is plaintext | MAC | padding, and the padding length is
// secret until the MAC verifies. Everything below runs the same instructions and touches the
// same addresses whatever the padding says (CI checks this under valgrind with the keys, and
// so the decrypted bytes, marked secret):
//  - the padding is checked over the largest possible padding span with masks, and its
//    verdict joins the MAC's at the end;
//  - the MAC is computed by Hmac::compute_secret_length, which hashes every compression
//    block the longest possible plaintext could need and keeps the real final state by
//    mask, so neither the number of blocks nor the calls nor the copies depend on the
//    plaintext length;
//  - the received MAC is extracted from its secret offset by a masked scan and a log-step
//    rotation, never by indexing with the secret;
//  - one result: padding and MAC failures are indistinguishable (both kAuthFailed).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "common/bytes.h"
#include "common/ct.h"
#include "record_crypto.h"

namespace wireseal::dtls::detail {
namespace {

using wireseal::detail::ct_mask_eq;
using wireseal::detail::ct_mask_ge;
using wireseal::detail::ct_mask_ge_u8;
using wireseal::detail::ct_mask_lt;
using wireseal::detail::ct_mask_lt_u8;

// clamp_to_row is x - row clamped to [0, width], in constant time: where the secret position
// x falls in the row of `width` bytes that starts at `row` (0 before it, width after it).
// Every argument is below 2^16, so the differences never reach the sign bit.
inline std::size_t clamp_to_row(std::size_t x, std::size_t row, std::size_t width) noexcept {
  using wireseal::detail::ct_mask_lt;
  using wireseal::detail::ct_select;
  return ct_select(ct_mask_lt(x, row), 0, ct_select(ct_mask_lt(row + width, x), width, x - row));
}

// padding_mismatch ORs together, over the last `to_check` bytes of the record, the
// difference from `pad` of each byte that lies in the padding: byte t of the tail when
// t >= to_check - 1 - pad. It works in rows of 32 bytes: the row's first padding byte is a
// scalar computed once (clamp_to_row), and each byte's mask compares its place in the row,
// below 2^7, with that, in 8-bit lanes (a whole row is one AVX2 step; the mask of the
// position itself, in wider lanes, was most of the cost). Zero when the padding is well
// formed.
WS_CT_VECTOR_CLONES
std::uint8_t padding_mismatch(const std::uint8_t* tail, std::size_t to_check,
                              std::size_t pad) noexcept {
  constexpr std::size_t kRow = 32;
  const std::size_t last = to_check - 1;
  // The first padding byte; 0 when the padding would run past the tail (such a record
  // fails its length check, and the whole tail is compared).
  const std::size_t first =
      wireseal::detail::ct_select(ct_mask_ge(last, pad), last - pad, 0);  // secret
  const auto pad8 = static_cast<std::uint8_t>(pad);
  std::uint8_t bad = 0;
  const auto scan_row = [&](std::size_t row, std::size_t n) {
    const auto from = static_cast<std::uint8_t>(clamp_to_row(first, row, kRow));
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint8_t in_pad = ct_mask_ge_u8(static_cast<std::uint8_t>(j), from);
      bad = static_cast<std::uint8_t>(bad | (in_pad & (tail[row + j] ^ pad8)));
    }
  };
  std::size_t row = 0;
  for (; row + kRow <= to_check; row += kRow) {
    scan_row(row, kRow);  // a constant count: whole vector steps
  }
  scan_row(row, to_check - row);
  return bad;
}

// rotate_bytes writes rotated[0, mac_len) rotated left by `offset` (secret, below mac_len) to
// `out`: one bit of the offset at a time, each step a masked choice between the bytes and
// the bytes rotated by a public amount. The buffer holds two copies so that index k + shift
// never wraps (no division, and the indices are public).
inline void rotate_bytes(std::uint8_t (&rotated)[crypto::kMaxDigestLength], std::size_t mac_len,
                         std::uint16_t offset, std::uint8_t* out) noexcept {
  std::uint8_t twice[2 * crypto::kMaxDigestLength];
  for (std::size_t shift = 1, bit = 0; shift < mac_len; shift <<= 1, ++bit) {
    const auto mask = static_cast<std::uint8_t>(0 - ((offset >> bit) & 1));
    std::memcpy(twice, rotated, mac_len);
    std::memcpy(twice + mac_len, rotated, mac_len);
    for (std::size_t k = 0; k < mac_len; ++k) {
      rotated[k] = static_cast<std::uint8_t>((twice[k + shift] & mask) | (twice[k] & ~mask));
    }
  }
  std::memcpy(out, rotated, mac_len);
}

// rotate_words is rotate_bytes for a MAC of W whole words (SHA-256 and SHA-384 in 64-bit
// words, SHA-1 in five 32-bit ones), in registers: each step's rotation by a public byte
// count is word moves and funnel shifts. (The byte form reloads the bytes it just stored at
// another offset, a store-forwarding stall per step, about as long as the whole scan.)
template <class Word, std::size_t W>
inline void rotate_words(const std::uint8_t* rotated, std::uint16_t offset,
                         std::uint8_t* out) noexcept {
  constexpr std::size_t kBytes = sizeof(Word);
  Word w[W];
  for (std::size_t i = 0; i < W; ++i) {
    w[i] = load<std::endian::little, Word>(rotated + kBytes * i);
  }
  for (std::size_t shift = 1, bit = 0; shift < kBytes * W; shift <<= 1, ++bit) {
    const Word mask = Word{0} - static_cast<Word>((offset >> bit) & 1);
    const std::size_t words = shift / kBytes;
    const std::size_t bits = 8 * (shift % kBytes);
    Word r[W];
    for (std::size_t i = 0; i < W; ++i) {
      const Word lo = w[(i + words) % W];
      const Word hi = w[(i + words + 1) % W];
      // byte k gets byte k + shift
      r[i] = bits == 0 ? lo : static_cast<Word>((lo >> bits) | (hi << (8 * kBytes - bits)));
    }
    for (std::size_t i = 0; i < W; ++i) {
      w[i] = static_cast<Word>((r[i] & mask) | (w[i] & ~mask));
    }
  }
  for (std::size_t i = 0; i < W; ++i) {
    store<std::endian::little>(out + kBytes * i, w[i]);
  }
}

// rotate_mac is the rotation for a MAC of constant size: in 64-bit words when it is whole
// ones, else in 32-bit words when it is whole ones (SHA-1), else byte by byte.
template <class MacLen>
inline void rotate_mac(std::uint8_t (&rotated)[crypto::kMaxDigestLength], MacLen mac_len,
                       std::uint16_t offset, std::uint8_t* out) noexcept {
  if constexpr (!std::is_same_v<MacLen, std::size_t>) {
    if constexpr (MacLen::value % 8 == 0) {
      return rotate_words<std::uint64_t, MacLen::value / 8>(rotated, offset, out);
    } else if constexpr (MacLen::value % 4 == 0) {
      return rotate_words<std::uint32_t, MacLen::value / 4>(rotated, offset, out);
    }
  }
  rotate_bytes(rotated, mac_len, offset, out);
}

// copy_mac_rows copies data[mac_start, mac_start + mac_len) into `out` without a memory access
// that depends on the secret mac_start, which lies in [scan_start, data.size() - mac_len].
// MacLen is std::size_t, or a std::integral_constant for the digest sizes in use, so that
// their rows are whole vector steps (inline: compiled into extract_mac's clones).
template <class MacLen>
[[gnu::always_inline]] inline void copy_mac_rows(std::span<const std::uint8_t> data,
                                                 std::size_t mac_start, MacLen mac_len,
                                                 std::size_t scan_start,
                                                 std::uint8_t* out) noexcept {
  // Scan in rows of mac_len bytes: byte j of every row lands in rotated[j] when it belongs
  // to the MAC, which in that row are the bytes [from, to) (clamp_to_row, scalars once a
  // row), so each byte's mask compares j, below 2^7, in 8-bit lanes. The row holding the
  // MAC's first byte says how far rotated[] is rotated. Positions are relative to
  // scan_start: the window is at most mac_len + 256 bytes.
  std::uint8_t rotated[crypto::kMaxDigestLength] = {};
  std::size_t rotate_offset = 0;
  const std::size_t window = data.size() - scan_start;
  const std::size_t start = mac_start - scan_start;  // secret
  const auto scan_row = [&](std::size_t row, std::size_t n) {
    const auto from = static_cast<std::uint8_t>(clamp_to_row(start, row, mac_len));
    const auto to = static_cast<std::uint8_t>(clamp_to_row(start + mac_len, row, mac_len));
    rotate_offset |= (start - row) & ct_mask_ge(start, row) & ct_mask_lt(start, row + mac_len);
    for (std::size_t j = 0; j < n; ++j) {
      const auto place = static_cast<std::uint8_t>(j);
      const auto in_mac =
          static_cast<std::uint8_t>(ct_mask_ge_u8(place, from) & ct_mask_lt_u8(place, to));
      rotated[j] = static_cast<std::uint8_t>(rotated[j] | (data[scan_start + row + j] & in_mac));
    }
  };
  std::size_t row = 0;
  for (; row + mac_len <= window; row += mac_len) {
    scan_row(row, mac_len);  // whole rows: a constant count when MacLen is
  }
  scan_row(row, window - row);
  rotate_mac(rotated, mac_len, static_cast<std::uint16_t>(rotate_offset), out);
}

// extract_mac is copy_mac_rows, with the MAC sizes of the DTLS suites (SHA-1, SHA-256,
// SHA-384) as constants.
WS_CT_VECTOR_CLONES
void extract_mac(std::span<const std::uint8_t> data, std::size_t mac_start, std::size_t mac_len,
                 std::size_t scan_start, std::uint8_t* out) noexcept {
  switch (mac_len) {
    case 20:
      return copy_mac_rows(data, mac_start, std::integral_constant<std::size_t, 20>{}, scan_start,
                           out);
    case 32:
      return copy_mac_rows(data, mac_start, std::integral_constant<std::size_t, 32>{}, scan_start,
                           out);
    case 48:
      return copy_mac_rows(data, mac_start, std::integral_constant<std::size_t, 48>{}, scan_start,
                           out);
    default:
      return copy_mac_rows(data, mac_start, mac_len, scan_start, out);
  }
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
  // Padding: the last byte says how many bytes before it share its value. Only the length
  // check gates the length the MAC is taken over: a padding that runs past the record counts
  // as none. Whether the padding bytes match is checked after the hash (below), because
  // nothing the hash does needs that verdict: a record with bad padding is hashed at the
  // length its last byte claims, the same work as any other, and fails all the same. Kept
  // off the hash's path, the scan runs while the SHA rounds' long chain does (issued before
  // the hash it held the chain back; 4-20 ns a record).
  std::size_t pad = data[len - 1];
  std::size_t good = ct_mask_ge(len, pad + 1 + mac_len);
  pad &= good;
  // Not const: declassifying it below must reach the value the return uses.
  std::size_t plaintext_len = len - mac_len - 1 - pad;

  // The received MAC, extracted before the hash for the same reason: issued after it, the
  // extraction waited for the outer hash (about 15 ns a record).
  // The MAC starts at or after len - mac_len - 256 (the longest padding). The scan starts
  // up to a row earlier, so that a long record's window is whole rows (whole vector steps);
  // bytes before the earliest start are never MAC bytes, and their masks say so.
  std::uint8_t received[crypto::kMaxDigestLength];
  const std::size_t window = (mac_len + 256 + mac_len - 1) / mac_len * mac_len;
  const std::size_t scan_start = len > window ? len - window : 0;
  extract_mac(data, plaintext_len, mac_len, scan_start, received);

  // MAC over aad_prefix | length | plaintext, for a plaintext length known to be at least
  // len - mac_len - 256 (the longest padding) and at most len - mac_len - 1.
  std::uint8_t header[kMaxAadSize];
  std::memcpy(header, aad_prefix.data(), aad_prefix.size());
  store_be16(header + aad_prefix.size(), static_cast<std::uint16_t>(plaintext_len));
  const std::size_t max_plaintext = len - mac_len - 1;
  const std::size_t min_plaintext = len > mac_len + 256 ? len - mac_len - 256 : 0;
  std::uint8_t computed[crypto::kMaxDigestLength];
  hmac.compute_secret_length({header, aad_prefix.size() + 2}, data.first(max_plaintext),
                             plaintext_len, min_plaintext, {computed, mac_len});

  // The last min(len, 256) bytes are all compared, each under a mask saying whether it is
  // padding.
  const std::size_t to_check = len < 256 ? len : 256;
  good &= ct_mask_eq(padding_mismatch(data.data() + (len - to_check), to_check, pad), 0);
  std::uint8_t diff = 0;
  for (std::size_t i = 0; i < mac_len; ++i) {
    diff = static_cast<std::uint8_t>(diff | (computed[i] ^ received[i]));
  }
  // The fuzzing build accepts any MAC but still checks the padding.
  good &= wireseal::detail::kFuzzingAcceptsAnyTag ? ~std::size_t{0} : ct_mask_eq(diff, 0);
  WS_CT_DECLASSIFY(&good, sizeof(good));  // the verdict is public: the record is dropped or not
  if (good == 0) {
    return Error::kAuthFailed;
  }
  // Accepted: the plaintext length is the record's, no longer a secret.
  WS_CT_DECLASSIFY(&plaintext_len, sizeof(plaintext_len));
  return plaintext_len;
}

}  // namespace wireseal::dtls::detail
