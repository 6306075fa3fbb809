#pragma once
// The protection of a TLS/DTLS 1.2 CBC record body with its two keys at once: AES-CBC under
// the write key and HMAC under the MAC key, in either order the protocols define.
//
// Both halves are serial chains: CBC encryption waits on each block's AES rounds, HMAC on each
// compression. Where the CPU can run the two in one instruction stream (x86 with AES-NI and
// SHA-NI, HMAC-SHA1 and HMAC-SHA256 on the native backends) these functions interleave them,
// so a record costs about the longer chain instead of their sum; elsewhere they run the two in
// turn. The bytes are the same either way.

#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/result.h"

namespace wireseal::crypto {

// cbc_hmac_stitches tells whether the MAC of header || part (header_len and part_len bytes) has a
// run of whole 64-byte blocks inside `part`, which is what the stitched kernel takes (part: the
// plaintext for mac_then_encrypt, IV || body for encrypt_then_mac). Shorter records run the two
// chains in turn, as do CPUs and backends without the kernel.
constexpr bool cbc_hmac_stitches(std::size_t header_len, std::size_t part_len) noexcept {
  return part_len >= (64 - header_len % 64) % 64 + 64;
}

// mac_then_encrypt protects `body` in place, MAC-then-encrypt (RFC 5246 §6.2.3.2):
//
//   body = plaintext (n bytes) || MAC (hmac.digest_len()) || padding, a multiple of 16 bytes
//
// It writes HMAC(header || plaintext) after the plaintext, then encrypts the whole body with
// AES-CBC from `iv`. The caller writes the padding beforehand. kInvalidArgument if body is not
// whole blocks or has no room for the MAC.
Status mac_then_encrypt(const Hmac& hmac, AesCbc& cbc, std::span<const std::uint8_t, 16> iv,
                        std::span<const std::uint8_t> header, std::span<std::uint8_t> body,
                        std::size_t n) noexcept;

// encrypt_then_mac protects a record encrypt-then-MAC (RFC 7366): `iv_and_body` is the IV (16
// bytes) followed by the padded plaintext, a multiple of 16 bytes, which is encrypted in place
// with AES-CBC from that IV; then `mac` (1..hmac.digest_len() bytes) receives
// HMAC(header || IV || ciphertext). kInvalidArgument on other sizes.
Status encrypt_then_mac(AesCbc& cbc, const Hmac& hmac, std::span<const std::uint8_t> header,
                        std::span<std::uint8_t> iv_and_body, std::span<std::uint8_t> mac) noexcept;

}  // namespace wireseal::crypto
