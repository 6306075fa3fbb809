#pragma once
// Keying SRTP from DTLS-SRTP (RFC 5764 §4.2): the TLS exporter ("EXTRACTOR-dtls_srtp") yields
//
//   client_write_SRTP_master_key | server_write_SRTP_master_key |
//   client_write_SRTP_master_salt | server_write_SRTP_master_salt
//
// with key and salt lengths fixed by the negotiated profile (AES-CM 128 / NULL: 16 + 14,
// AES-192: 24 + 14, AES-256: 32 + 14, AEAD_AES_128_GCM: 16 + 12, AEAD_AES_256_GCM: 32 + 12).
// The client protects with the client_write values and the server with the server_write ones.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"
#include "wireseal/srtp/profile.h"
#include "wireseal/srtp/session.h"

namespace wireseal::srtp {

enum class DtlsRole : std::uint8_t { kClient, kServer };

// DtlsSrtpKeys owns the four values split out of the exported keying material and wipes them
// when destroyed.
class DtlsSrtpKeys {
 public:
  DtlsSrtpKeys() = default;
  ~DtlsSrtpKeys();
  DtlsSrtpKeys(const DtlsSrtpKeys&) = default;
  DtlsSrtpKeys& operator=(const DtlsSrtpKeys&) = default;

  Profile profile() const noexcept { return profile_; }
  std::span<const std::uint8_t> client_key() const noexcept {
    return {client_key_.data(), key_len_};
  }
  std::span<const std::uint8_t> server_key() const noexcept {
    return {server_key_.data(), key_len_};
  }
  std::span<const std::uint8_t> client_salt() const noexcept {
    return {client_salt_.data(), salt_len_};
  }
  std::span<const std::uint8_t> server_salt() const noexcept {
    return {server_salt_.data(), salt_len_};
  }

  // client / server are the master keys (no MKI) each side protects with; they point into
  // this object.
  MasterKey client() const noexcept { return {client_key(), client_salt(), {}}; }
  MasterKey server() const noexcept { return {server_key(), server_salt(), {}}; }
  // local is what `role` protects with (its own write key); remote what it unprotects with.
  MasterKey local(DtlsRole role) const noexcept {
    return role == DtlsRole::kClient ? client() : server();
  }
  MasterKey remote(DtlsRole role) const noexcept {
    return role == DtlsRole::kClient ? server() : client();
  }

 private:
  friend Result<DtlsSrtpKeys> split_keying_material(
      Profile profile, std::span<const std::uint8_t> material) noexcept;

  Profile profile_ = Profile::kAes128CmHmacSha1_80;
  std::size_t key_len_ = 0;
  std::size_t salt_len_ = 0;
  std::array<std::uint8_t, 32> client_key_{};
  std::array<std::uint8_t, 32> server_key_{};
  std::array<std::uint8_t, 14> client_salt_{};
  std::array<std::uint8_t, 14> server_salt_{};
};

// split_keying_material splits `material` (exactly keying_material_size(profile) bytes, as
// exported by the DTLS handshake) into the client and server master keys and salts of
// `profile`. kInvalidArgument for any other length.
Result<DtlsSrtpKeys> split_keying_material(Profile profile,
                                           std::span<const std::uint8_t> material) noexcept;

}  // namespace wireseal::srtp
