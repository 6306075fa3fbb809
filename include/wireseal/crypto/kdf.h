#pragma once
// Key derivation functions used by the protocols: the TLS 1.2 PRF (RFC 5246 §5), the SRTP
// KDF (RFC 3711 §4.3, AES-192/256 per RFC 6188) and the SP 800-108 counter-mode KDF (SMB 3.x
// uses it with HMAC-SHA256). These run at set-up, not per packet.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "wireseal/crypto/hmac.h"
#include "wireseal/result.h"

namespace wireseal::crypto {

// tls12_prf fills `out` with PRF(secret, label, seed) = P_<hash>(secret, label || seed).
// TLS 1.2 suites use kSha256 or kSha384.
Status tls12_prf(HashAlgorithm hash, std::span<const std::uint8_t> secret, std::string_view label,
                 std::span<const std::uint8_t> seed, std::span<std::uint8_t> out) noexcept;

// SRTP KDF labels (RFC 3711 §4.3.2, §4.3.1 for RTCP).
enum class SrtpKdfLabel : std::uint8_t {
  kRtpEncryption = 0x00,
  kRtpAuthentication = 0x01,
  kRtpSalt = 0x02,
  kRtcpEncryption = 0x03,
  kRtcpAuthentication = 0x04,
  kRtcpSalt = 0x05,
  kRtpHeaderEncryption = 0x06,  // RFC 6904
  kRtpHeaderSalt = 0x07,
};

// srtp_kdf fills `out` with the AES-CM keystream at x = (label || r) XOR master_salt, where
// r = index DIV key_derivation_rate (0 when the rate is 0, the WebRTC case). `master_key` is
// 16, 24 or 32 bytes; `master_salt` at most 14 bytes. A 12-byte RFC 7714 AEAD salt occupies
// the first 12 of the 14 bytes, followed by two zero bytes (libsrtp's and RFC 9335's reading).
Status srtp_kdf(std::span<const std::uint8_t> master_key, std::span<const std::uint8_t> master_salt,
                SrtpKdfLabel label, std::span<std::uint8_t> out,
                std::uint64_t index_div_kdr = 0) noexcept;

// KbkdfPrf is the pseudorandom function of an SP 800-108 KDF.
enum class KbkdfPrf : std::uint8_t {
  kHmacSha1,
  kHmacSha224,
  kHmacSha256,
  kHmacSha384,
  kHmacSha512,
  kCmacAes128,
  kCmacAes192,
  kCmacAes256,
};

// kbkdf_counter is SP 800-108 §5.1 (KDF in counter mode): block i = PRF(key, fixed_before ||
// [i]_r || fixed_after) for i = 1, 2, ..., where [i]_r is the counter as a big-endian integer
// of counter_bits (8, 16, 24 or 32) bits; `out` gets the first out.size() bytes. The caller
// builds the fixed input (label, separator, context, [L]) and chooses where the counter goes.
Status kbkdf_counter(KbkdfPrf prf, std::span<const std::uint8_t> key,
                     std::span<const std::uint8_t> fixed_before,
                     std::span<const std::uint8_t> fixed_after, std::size_t counter_bits,
                     std::span<std::uint8_t> out) noexcept;

// sp800_108_hmac_sha256 is the SMB 3.x KDF (MS-SMB2 §3.1.4.2): counter mode with HMAC-SHA256,
// a 32-bit counter first, fixed input = label || 0x00 || context || [8 * out.size()]_32.
// `label` and `context` are passed as the exact bytes SMB specifies (labels include their NUL).
Status sp800_108_hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> label,
                             std::span<const std::uint8_t> context,
                             std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::crypto
