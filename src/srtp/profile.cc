// The SRTP profile table (RFC 3711, RFC 5764 §4.1.2, RFC 6188 §6, RFC 7714 §12/§14.2).
#include "wireseal/srtp/profile.h"

#include <array>

namespace wireseal::srtp {
namespace {

constexpr std::size_t kHmacSha1KeyLen = 20;  // RFC 3711 §4.2.1: n_a = 160 bits
constexpr std::size_t kCmSaltLen = 14;       // RFC 3711 §4.1.1: n_s = 112 bits
constexpr std::size_t kGcmSaltLen = 12;      // RFC 7714 §12: 96-bit salt
constexpr std::size_t kGcmTagLen = 16;       // RFC 7714 §12: 16-octet tag only

// SRTCP always carries the 80-bit tag with HMAC-SHA1: RFC 5764 §4.1.2 gives SRTCP's
// auth_tag_length as 80 even for the _32 profiles (RFC 3711 §5.2 lets SRTP alone shorten it).
constexpr std::array<ProfileInfo, kProfileCount> kTable = {{
    {Profile::kAes128CmHmacSha1_80, "AES_CM_128_HMAC_SHA1_80", CipherKind::kAesCm, 0x0001, 16,
     kCmSaltLen, 16, kCmSaltLen, kHmacSha1KeyLen, 10, 10},
    {Profile::kAes128CmHmacSha1_32, "AES_CM_128_HMAC_SHA1_32", CipherKind::kAesCm, 0x0002, 16,
     kCmSaltLen, 16, kCmSaltLen, kHmacSha1KeyLen, 4, 10},
    {Profile::kAes192CmHmacSha1_80, "AES_192_CM_HMAC_SHA1_80", CipherKind::kAesCm, 0, 24,
     kCmSaltLen, 24, kCmSaltLen, kHmacSha1KeyLen, 10, 10},
    {Profile::kAes192CmHmacSha1_32, "AES_192_CM_HMAC_SHA1_32", CipherKind::kAesCm, 0, 24,
     kCmSaltLen, 24, kCmSaltLen, kHmacSha1KeyLen, 4, 10},
    {Profile::kAes256CmHmacSha1_80, "AES_256_CM_HMAC_SHA1_80", CipherKind::kAesCm, 0, 32,
     kCmSaltLen, 32, kCmSaltLen, kHmacSha1KeyLen, 10, 10},
    {Profile::kAes256CmHmacSha1_32, "AES_256_CM_HMAC_SHA1_32", CipherKind::kAesCm, 0, 32,
     kCmSaltLen, 32, kCmSaltLen, kHmacSha1KeyLen, 4, 10},
    // NULL profiles still take a 128-bit master key and 112-bit salt: the KDF needs them to
    // derive the HMAC key (RFC 5764 §4.1.2 lists them with the AES-CM PRF).
    {Profile::kNullHmacSha1_80, "NULL_HMAC_SHA1_80", CipherKind::kNull, 0x0005, 16, kCmSaltLen, 0,
     0, kHmacSha1KeyLen, 10, 10},
    {Profile::kNullHmacSha1_32, "NULL_HMAC_SHA1_32", CipherKind::kNull, 0x0006, 16, kCmSaltLen, 0,
     0, kHmacSha1KeyLen, 4, 10},
    {Profile::kAeadAes128Gcm, "AEAD_AES_128_GCM", CipherKind::kAesGcm, 0x0007, 16, kGcmSaltLen, 16,
     kGcmSaltLen, 0, kGcmTagLen, kGcmTagLen},
    {Profile::kAeadAes256Gcm, "AEAD_AES_256_GCM", CipherKind::kAesGcm, 0x0008, 32, kGcmSaltLen, 32,
     kGcmSaltLen, 0, kGcmTagLen, kGcmTagLen},
}};

}  // namespace

const ProfileInfo& info(Profile profile) noexcept {
  const auto i = static_cast<std::size_t>(profile);
  return kTable[i < kTable.size() ? i : 0];
}

std::optional<Profile> profile_from_dtls_srtp_id(std::uint16_t id) noexcept {
  if (id == 0) {
    return std::nullopt;
  }
  for (const ProfileInfo& p : kTable) {
    if (p.dtls_srtp_id == id) {
      return p.profile;
    }
  }
  return std::nullopt;
}

}  // namespace wireseal::srtp
