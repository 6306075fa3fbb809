#pragma once
// KeyMaterial: the session keys derived from one master key (RFC 3711 §4.3), keyed once and
// shared by every stream of a Session (libsrtp's "template" sharing, without the per-stream
// clone): streams carry only an index into the Session's key list.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "common/ct.h"
#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/srtp/profile.h"
#include "wireseal/srtp/session.h"

namespace wireseal::srtp::detail {

inline constexpr std::size_t kMaxSaltLen = 14;

// CipherKeys are the keyed objects of one of SRTP or SRTCP.
struct CipherKeys {
  CipherKeys() = default;
  CipherKeys(CipherKeys&&) noexcept = default;
  CipherKeys& operator=(CipherKeys&&) noexcept = default;
  // ~CipherKeys wipes the session salt (the keyed objects wipe their keys themselves).
  ~CipherKeys() { wireseal::detail::secure_wipe(salt.data(), salt.size()); }

  std::optional<crypto::AesCtr> ctr;             // AES-CM profiles
  std::optional<crypto::Aead> aead;              // AEAD profiles
  std::optional<crypto::Hmac> hmac;              // HMAC-SHA1 profiles
  std::array<std::uint8_t, kMaxSaltLen> salt{};  // session salt (14 or 12 bytes used)
};

// salt14 / salt12 view the used part of a session salt (AES-CM: 14 bytes, AEAD: 12).
inline std::span<const std::uint8_t, 14> salt14(
    const std::array<std::uint8_t, kMaxSaltLen>& s) noexcept {
  return std::span<const std::uint8_t, 14>(s.data(), 14);
}
inline std::span<const std::uint8_t, 12> salt12(
    const std::array<std::uint8_t, kMaxSaltLen>& s) noexcept {
  return std::span<const std::uint8_t, 12>(s.data(), 12);
}

// KeyMaterial is everything derived from one master key, plus its MKI.
struct KeyMaterial {
  KeyMaterial() = default;
  KeyMaterial(KeyMaterial&&) noexcept = default;
  KeyMaterial& operator=(KeyMaterial&&) noexcept = default;
  ~KeyMaterial() { wireseal::detail::secure_wipe(header_salt.data(), header_salt.size()); }

  CipherKeys rtp;
  CipherKeys rtcp;
  // RFC 6904 / RFC 9335 header keys: AES-CM with the header-encryption key and salt. AEAD
  // profiles use AES-CM of the same key size here (as libsrtp does); NULL profiles have none.
  std::optional<crypto::AesCtr> header_ctr;
  std::array<std::uint8_t, kMaxSaltLen> header_salt{};
  std::array<std::uint8_t, kMaxMkiLength> mki{};
  // Packets protected under this master key, over every stream (RFC 3711 §9.2 limits).
  std::uint64_t srtp_protected = 0;
  std::uint64_t srtcp_protected = 0;
};

// derive_key_material runs the SRTP KDF (key derivation rate 0) for every session key of
// `profile` from `key` and keys the crypto objects. Throws std::invalid_argument on sizes.
KeyMaterial derive_key_material(const ProfileInfo& profile, const MasterKey& key,
                                std::size_t mki_len, crypto::Backend backend);

}  // namespace wireseal::srtp::detail
