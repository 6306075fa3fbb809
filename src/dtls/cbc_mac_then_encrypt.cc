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
using wireseal::detail::ct_select;

// clamp_to_row is x - row clamped to [0, width], in constant time: where the secret position
// x falls in the row of `width` bytes that starts at `row` (0 before it, width after it).
// Every argument is below 2^16, so the differences never reach the sign bit.
inline std::size_t clamp_to_row(std::size_t x, std::size_t row, std::size_t width) noexcept {
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
  const std::size_t first = ct_select(ct_mask_ge(last, pad), last - pad, 0);  // secret
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

// rotate_words rotates the W 64-bit words at `rotated` left by `offset` bytes (secret, below
// 8 * W) into `out`, in registers: one bit of the offset at a time, each step a masked choice
// between the words and the words rotated by a public byte count (word moves and funnel
// shifts). (Rotating bytes in memory reloads the bytes just stored at another offset, a
// store-forwarding stall per step, about as long as the whole scan.)
template <std::size_t W>
inline void rotate_words(const std::uint8_t* rotated, std::uint16_t offset,
                         std::uint8_t* out) noexcept {
  std::uint64_t w[W];
  for (std::size_t i = 0; i < W; ++i) {
    w[i] = load_le64(rotated + 8 * i);
  }
  for (std::size_t shift = 1, bit = 0; shift < 8 * W; shift <<= 1, ++bit) {
    const std::uint64_t mask = 0 - static_cast<std::uint64_t>((offset >> bit) & 1);
    const std::size_t words = shift / 8;
    const std::size_t bits = 8 * (shift % 8);
    std::uint64_t r[W];
    for (std::size_t i = 0; i < W; ++i) {
      const std::uint64_t lo = w[(i + words) % W];
      const std::uint64_t hi = w[(i + words + 1) % W];
      r[i] = bits == 0 ? lo : (lo >> bits) | (hi << (64 - bits));  // byte k gets byte k + shift
    }
    for (std::size_t i = 0; i < W; ++i) {
      w[i] = (r[i] & mask) | (w[i] & ~mask);
    }
  }
  for (std::size_t i = 0; i < W; ++i) {
    store_le64(out + 8 * i, w[i]);
  }
}

// mac_row is the row copy_mac_rows scans in for a MAC of mac_len bytes: 32 bytes (one AVX2
// step) for SHA-1 and SHA-256, 64 for longer MACs.
constexpr std::size_t mac_row(std::size_t mac_len) noexcept { return mac_len <= 32 ? 32 : 64; }

// mac_scan_start is where copy_mac_rows starts scanning a record of len bytes. The MAC starts
// at or after len - mac_len - 256 (the longest padding); the scan starts up to a row earlier,
// so that a long record's window is whole rows (whole vector steps). Bytes before the
// earliest start are never MAC bytes, and their masks say so.
constexpr std::size_t mac_scan_start(std::size_t len, std::size_t mac_len) noexcept {
  const std::size_t row = mac_row(mac_len);
  const std::size_t window = (mac_len + 256 + row - 1) / row * row;
  return len > window ? len - window : 0;
}

// copy_mac_rows copies data[mac_start, mac_start + mac_len) into `out` without a memory access
// that depends on the secret mac_start, which lies in [scan_start, data.size() - mac_len].
// It writes Row bytes: the MAC, then zeros.
// It scans in rows of Row >= mac_len bytes: byte j of every row lands in rotated[j] when it
// belongs to the MAC, which in that row are the bytes [from, to) (clamp_to_row, scalars once
// a row), so each byte's mask compares j, below 2^7, in 8-bit lanes. A MAC fits in a row, so
// its bytes land in distinct places, in order from start mod Row on and wrapping round; the
// row holding the MAC's first byte says how far to rotate them back. Positions are relative
// to scan_start: the window is at most 384 bytes. (Inline: compiled into
// extract_mac's clones.)
template <std::size_t Row, class MacLen>
[[gnu::always_inline]] inline void copy_mac_rows(std::span<const std::uint8_t> data,
                                                 std::size_t mac_start, MacLen mac_len,
                                                 std::size_t scan_start,
                                                 std::uint8_t* out) noexcept {
  alignas(Row) std::uint8_t rotated[Row];
  std::size_t rotate_offset = 0;
  const std::size_t window = data.size() - scan_start;
  const std::size_t start = mac_start - scan_start;  // secret
  // The first row is stored, not ORed into zeros: zeroing the row in smaller stores than
  // the row's load stalled that load (store forwarding), about 20 cycles a record.
  const auto scan_row = [&](std::size_t row, std::size_t n, bool first) {
    const auto from = static_cast<std::uint8_t>(clamp_to_row(start, row, Row));
    const auto to = static_cast<std::uint8_t>(clamp_to_row(start + mac_len, row, Row));
    rotate_offset |= (start - row) & ct_mask_ge(start, row) & ct_mask_lt(start, row + Row);
    for (std::size_t j = 0; j < n; ++j) {
      const auto place = static_cast<std::uint8_t>(j);
      const auto in_mac =
          static_cast<std::uint8_t>(ct_mask_ge_u8(place, from) & ct_mask_lt_u8(place, to));
      const auto mac_byte = static_cast<std::uint8_t>(data[scan_start + row + j] & in_mac);
      rotated[j] = first ? mac_byte : static_cast<std::uint8_t>(rotated[j] | mac_byte);
    }
  };
  std::size_t row = 0;
  if (window < Row) {  // a record shorter than a row (public)
    std::memset(rotated, 0, sizeof(rotated));
  } else {
    scan_row(0, Row, true);
    row = Row;
  }
  for (; row + Row <= window; row += Row) {
    scan_row(row, Row, false);  // a constant count: whole vector steps
  }
  scan_row(row, window - row, false);
  rotate_words<Row / 8>(rotated, static_cast<std::uint16_t>(rotate_offset), out);
}

// extract_mac is copy_mac_rows in the row its MAC needs (`out` holds kMaxDigestLength bytes),
// with the MAC sizes of the DTLS suites (SHA-1, SHA-256, SHA-384) as constants.
WS_CT_VECTOR_CLONES
void extract_mac(std::span<const std::uint8_t> data, std::size_t mac_start, std::size_t mac_len,
                 std::size_t scan_start, std::uint8_t* out) noexcept {
  using std::integral_constant;
  switch (mac_len) {
    case 20:
      return copy_mac_rows<32>(data, mac_start, integral_constant<std::size_t, 20>{}, scan_start,
                               out);
    case 32:
      return copy_mac_rows<32>(data, mac_start, integral_constant<std::size_t, 32>{}, scan_start,
                               out);
    case 48:
      return copy_mac_rows<64>(data, mac_start, integral_constant<std::size_t, 48>{}, scan_start,
                               out);
    default:
      if (mac_row(mac_len) == 32) {
        return copy_mac_rows<32>(data, mac_start, mac_len, scan_start, out);
      }
      return copy_mac_rows<64>(data, mac_start, mac_len, scan_start, out);
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
  std::uint8_t received[crypto::kMaxDigestLength];
  extract_mac(data, plaintext_len, mac_len, mac_scan_start(len, mac_len), received);

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
