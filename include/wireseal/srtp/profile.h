#pragma once
// SRTP protection profiles: the transforms a Session can run and their sizes.
//
// A profile fixes the cipher, the master key and salt lengths, the session keys derived from
// them (RFC 3711 §4.3) and the authentication tag lengths of SRTP and SRTCP. The table lives in
// src/srtp/profile.cc; everything else reads sizes from ProfileInfo rather than hard-coding them.

#include <cstddef>
#include <cstdint>
#include <optional>

namespace wireseal::srtp {

enum class Profile : std::uint8_t {
  kAes128CmHmacSha1_80,  // RFC 3711 default transform, RFC 5764 SRTP_AES128_CM_HMAC_SHA1_80
  kAes128CmHmacSha1_32,  // same, 32-bit SRTP tag (SRTCP keeps 80 bits, RFC 5764 §4.1.2)
  kAes192CmHmacSha1_80,  // RFC 6188
  kAes192CmHmacSha1_32,
  kAes256CmHmacSha1_80,  // RFC 6188
  kAes256CmHmacSha1_32,
  kNullHmacSha1_80,  // RFC 5764 SRTP_NULL_HMAC_SHA1_80: authentication only
  kNullHmacSha1_32,
  kAeadAes128Gcm,  // RFC 7714, 16-byte tag
  kAeadAes256Gcm,
};

inline constexpr std::size_t kProfileCount = 10;

// CipherKind is how a profile encrypts.
enum class CipherKind : std::uint8_t {
  kAesCm,   // AES counter mode (RFC 3711 §4.1.1) + HMAC-SHA1 (§4.2.1)
  kNull,    // no encryption (RFC 3711 §4.1.3) + HMAC-SHA1
  kAesGcm,  // AEAD (RFC 7714)
};

// ProfileInfo is one row of the profile table. All lengths are in bytes.
struct ProfileInfo {
  Profile profile;
  const char* name;  // the RFC 4568 / RFC 5764 name, e.g. "AES_CM_128_HMAC_SHA1_80"
  CipherKind cipher;
  std::uint16_t dtls_srtp_id;    // RFC 5764 §4.1.2 / RFC 7714 §14.2 profile id, 0 if none
  std::size_t master_key_len;    // 16, 24 or 32
  std::size_t master_salt_len;   // 14 (AES-CM, NULL) or 12 (AEAD, RFC 7714 §12)
  std::size_t session_key_len;   // encryption key (0 for NULL)
  std::size_t session_salt_len;  // 14 or 12 (0 for NULL)
  std::size_t auth_key_len;      // HMAC-SHA1 key, 20 (0 for AEAD)
  std::size_t rtp_tag_len;       // SRTP authentication tag: 10, 4 or 16 (AEAD)
  std::size_t rtcp_tag_len;      // SRTCP tag: 10 for every HMAC profile, 16 for AEAD
  // Usage limits of one master key over all the streams it protects (RFC 3711 §9.2): a
  // Session refuses to protect more with it (kKeyLimit) and the key must be replaced.
  std::uint64_t max_srtp_packets_per_key = std::uint64_t{1} << 48;
  std::uint64_t max_srtcp_packets_per_key = std::uint64_t{1} << 31;
};

// info returns the table row of `profile` (a static object, valid forever).
const ProfileInfo& info(Profile profile) noexcept;

// profile_from_dtls_srtp_id maps a DTLS-SRTP protection profile id (RFC 5764 use_srtp
// extension) to a Profile; std::nullopt for ids wireseal does not implement.
std::optional<Profile> profile_from_dtls_srtp_id(std::uint16_t id) noexcept;

// keying_material_size is the DTLS-SRTP exporter length for `profile` (RFC 5764 §4.2):
// 2 * (master key + master salt), client values first.
inline std::size_t keying_material_size(Profile profile) noexcept {
  const ProfileInfo& p = info(profile);
  return 2 * (p.master_key_len + p.master_salt_len);
}

}  // namespace wireseal::srtp
