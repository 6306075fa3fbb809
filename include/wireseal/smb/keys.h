#pragma once
// SMB 3.x key derivation (MS-SMB2 §3.1.4.2, §3.2.5.3.1, §3.3.5.5.3) and the SMB 3.1.1
// pre-authentication integrity hash (§3.2.5.2, §3.3.5.4). Both run at session set-up, not
// per message.
//
// KDF = SP 800-108 counter mode, PRF HMAC-SHA256, r = 32, L = 128 or 256:
//
//   dialect      key            label                 context
//   3.0, 3.0.2   signing        "SMB2AESCMAC\0"       "SmbSign\0"
//                client→server  "SMB2AESCCM\0"        "ServerIn \0"   (note the space)
//                server→client  "SMB2AESCCM\0"        "ServerOut\0"
//                application    "SMB2APP\0"           "SmbRpc\0"
//   3.1.1        signing        "SMBSigningKey\0"     preauth integrity hash (64 bytes)
//                client→server  "SMBC2SCipherKey\0"   preauth integrity hash
//                server→client  "SMBS2CCipherKey\0"   preauth integrity hash
//                application    "SMBAppKey\0"         preauth integrity hash
//
// Signing keys are always 128 bits. Cipher keys are 256 bits (L = 256) for AES-256-CCM/GCM,
// derived from the session's full session key (§3.2.5.3.1: "Session.FullSessionKey").

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb {

// Dialect is the negotiated SMB2 dialect revision (MS-SMB2 §2.2.3).
enum class Dialect : std::uint16_t {
  kSmb202 = 0x0202,
  kSmb210 = 0x0210,
  kSmb300 = 0x0300,
  kSmb302 = 0x0302,
  kSmb311 = 0x0311,
};

inline constexpr std::size_t kPreauthHashSize = 64;  // SHA-512 (§2.2.3.1.1 HashAlgorithm 1)

// SessionKeys holds the derived keys of one session. `client_to_server` is the client's
// EncryptionKey and the server's DecryptionKey; `server_to_client` the reverse. For dialects
// 2.0.2 and 2.1 only `signing` is set (it is the session key itself, §3.2.5.3.1).
struct SessionKeys {
  SessionKeys() = default;
  SessionKeys(const SessionKeys&) = default;
  SessionKeys& operator=(const SessionKeys&) = default;
  // ~SessionKeys wipes the keys, so no copy (such as the one inside a Result) outlives its
  // use in memory.
  ~SessionKeys() { wipe(); }

  std::array<std::uint8_t, 16> signing{};
  std::array<std::uint8_t, 32> client_to_server{};
  std::array<std::uint8_t, 32> server_to_client{};
  std::array<std::uint8_t, 16> application{};
  std::size_t cipher_key_len = 16;  // used prefix of the two cipher keys

  std::span<const std::uint8_t> client_to_server_key() const noexcept {
    return std::span<const std::uint8_t>(client_to_server).first(cipher_key_len);
  }
  std::span<const std::uint8_t> server_to_client_key() const noexcept {
    return std::span<const std::uint8_t>(server_to_client).first(cipher_key_len);
  }
  // wipe zeroes every key (call it when the session ends).
  void wipe() noexcept;
};

// derive_session_keys derives the keys of a session for `dialect` and `cipher` from
// `session_key` (the GSS session key; 16 bytes, or the 32-byte full session key when `cipher`
// is an AES-256 one — for 2.x/3.0.x and AES-128 ciphers its first 16 bytes are used, as
// §3.2.5.3.1 truncates SessionKey to 16 bytes). `preauth_hash` is the 64-byte
// Session.PreauthIntegrityHashValue for 3.1.1 and ignored otherwise.
// Errors: kInvalidArgument (session key shorter than needed, missing preauth hash for 3.1.1,
// an AES-256 cipher before 3.1.1).
Result<SessionKeys> derive_session_keys(Dialect dialect, Cipher cipher,
                                        std::span<const std::uint8_t> session_key,
                                        std::span<const std::uint8_t> preauth_hash = {}) noexcept;

// smb3_kdf is the SMB 3.x KDF itself: out.size() bytes (16 or 32, i.e. L = 128 or 256) of
// KDF(key, label, context); label and context are passed with their NUL terminators.
Status smb3_kdf(std::span<const std::uint8_t> key, std::span<const std::uint8_t> label,
                std::span<const std::uint8_t> context, std::span<std::uint8_t> out) noexcept;

// PreauthHash accumulates Connection/Session.PreauthIntegrityHashValue (§3.2.5.2):
// H0 = 64 zero bytes, Hi = SHA-512(Hi-1 || message), over the NEGOTIATE request and response
// (connection hash), then, copied per session, each SESSION_SETUP request and every
// SESSION_SETUP response except the final successful one. Set-up path: uses OpenSSL's SHA-512
// and may allocate.
class PreauthHash {
 public:
  PreauthHash() noexcept = default;

  // update folds one whole SMB2 message (header included, no transport prefix) into the hash.
  // Returns kUnsupported if the digest fails (OpenSSL without SHA-512).
  Status update(std::span<const std::uint8_t> message) noexcept;

  // value is the current hash value (64 bytes).
  std::span<const std::uint8_t, kPreauthHashSize> value() const noexcept { return value_; }

 private:
  std::array<std::uint8_t, kPreauthHashSize> value_{};
};

}  // namespace wireseal::smb
