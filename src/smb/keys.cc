// SMB 3.x session key derivation (MS-SMB2 §3.1.4.2, §3.2.5.3.1, §3.3.5.5.3).
#include "wireseal/smb/keys.h"

#include <algorithm>

#include "common/ct.h"
#include "wireseal/crypto/kdf.h"

namespace wireseal::smb {
namespace {

// Labels and contexts are the exact bytes of the specification, NUL terminator included
// (sizeof a string literal counts it). "ServerIn " has a trailing space before the NUL.
template <std::size_t N>
std::span<const std::uint8_t> bytes_of(const char (&text)[N]) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(text), N};
}

constexpr std::size_t kSigningKeySize = 16;
constexpr std::size_t kAes128KeySize = 16;

}  // namespace

void SessionKeys::wipe() noexcept {
  detail::secure_wipe(signing.data(), signing.size());
  detail::secure_wipe(client_to_server.data(), client_to_server.size());
  detail::secure_wipe(server_to_client.data(), server_to_client.size());
  detail::secure_wipe(application.data(), application.size());
}

Status smb3_kdf(std::span<const std::uint8_t> key, std::span<const std::uint8_t> label,
                std::span<const std::uint8_t> context, std::span<std::uint8_t> out) noexcept {
  if (out.size() != 16 && out.size() != 32) {
    return Error::kInvalidArgument;
  }
  // sp800_108_hmac_sha256 encodes L as 8 * out.size(): 128 or 256, as §3.1.4.2 requires.
  return crypto::sp800_108_hmac_sha256(key, label, context, out);
}

Result<SessionKeys> derive_session_keys(Dialect dialect, Cipher cipher,
                                        std::span<const std::uint8_t> session_key,
                                        std::span<const std::uint8_t> preauth_hash) noexcept {
  const bool aes256 = info(cipher).key_len == 32;
  if (session_key.size() < kAes128KeySize) {
    return Error::kInvalidArgument;
  }
  SessionKeys keys;
  const std::span<const std::uint8_t> session_key_128 = session_key.first(kAes128KeySize);
  if (dialect == Dialect::kSmb202 || dialect == Dialect::kSmb210) {
    // §3.2.5.3.1: 2.x signs with HMAC-SHA256 keyed by the session key; there is no encryption.
    std::copy(session_key_128.begin(), session_key_128.end(), keys.signing.begin());
    return keys;
  }
  keys.cipher_key_len = info(cipher).key_len;
  // The cipher keys of AES-256 come from the full session key: 32 bytes with Kerberos, the
  // 16-byte SessionKey itself with NTLM (it has no longer key); everything else from the
  // 16-byte SessionKey.
  std::span<const std::uint8_t> cipher_kdk = session_key_128;
  if (aes256) {
    if (dialect != Dialect::kSmb311) {
      return Error::kInvalidArgument;
    }
    cipher_kdk = session_key.first(std::min<std::size_t>(session_key.size(), 32));
  }
  const std::span<std::uint8_t> c2s =
      std::span<std::uint8_t>(keys.client_to_server).first(keys.cipher_key_len);
  const std::span<std::uint8_t> s2c =
      std::span<std::uint8_t>(keys.server_to_client).first(keys.cipher_key_len);
  Status s;
  if (dialect == Dialect::kSmb311) {
    if (preauth_hash.size() != kPreauthHashSize) {
      return Error::kInvalidArgument;
    }
    if (!(s = smb3_kdf(session_key_128, bytes_of("SMBSigningKey"), preauth_hash, keys.signing)) ||
        !(s = smb3_kdf(cipher_kdk, bytes_of("SMBC2SCipherKey"), preauth_hash, c2s)) ||
        !(s = smb3_kdf(cipher_kdk, bytes_of("SMBS2CCipherKey"), preauth_hash, s2c)) ||
        !(s = smb3_kdf(session_key_128, bytes_of("SMBAppKey"), preauth_hash, keys.application))) {
      keys.wipe();
      return s.error();
    }
    return keys;
  }
  if (!(s = smb3_kdf(session_key_128, bytes_of("SMB2AESCMAC"), bytes_of("SmbSign"),
                     keys.signing)) ||
      !(s = smb3_kdf(session_key_128, bytes_of("SMB2AESCCM"), bytes_of("ServerIn "), c2s)) ||
      !(s = smb3_kdf(session_key_128, bytes_of("SMB2AESCCM"), bytes_of("ServerOut"), s2c)) ||
      !(s = smb3_kdf(session_key_128, bytes_of("SMB2APP"), bytes_of("SmbRpc"), keys.application))) {
    keys.wipe();
    return s.error();
  }
  static_assert(kSigningKeySize == sizeof(SessionKeys::signing));
  return keys;
}

}  // namespace wireseal::smb
