// SessionSecurity: one session's keys and what is done with them (MS-SMB2 §3.1.4.1, §3.1.4.3,
// §3.2.5.1.1, §3.2.5.1.3).
#include "wireseal/smb/session_security.h"

#include <stdexcept>

#include "common/create.h"
#include "wireseal/smb/header.h"

namespace wireseal::smb {
namespace {

bool is_smb2x(Dialect d) { return d == Dialect::kSmb202 || d == Dialect::kSmb210; }

SessionKeys derive_or_throw(const SessionConfig& c) {
  // 2.x has no ciphers; derive_session_keys only looks at the cipher's key size.
  const Cipher cipher = is_smb2x(c.dialect) ? Cipher::kAes128Ccm : c.cipher;
  Result<SessionKeys> keys = derive_session_keys(c.dialect, cipher, c.session_key, c.preauth_hash);
  if (!keys) {
    throw std::invalid_argument("wireseal::smb: cannot derive session keys from this config");
  }
  return *keys;
}

// signing_for is the algorithm the dialect signs with: HMAC-SHA256 for 2.x, AES-CMAC for 3.0.x,
// the negotiated one (SMB2_SIGNING_CAPABILITIES, AES-CMAC by default) for 3.1.1.
SigningAlgorithm signing_for(const SessionConfig& c) {
  if (is_smb2x(c.dialect)) {
    return SigningAlgorithm::kHmacSha256;
  }
  if (c.dialect == Dialect::kSmb311) {
    return c.signing;
  }
  if (c.signing == SigningAlgorithm::kAesGmac && c.protection == Protection::kSigned) {
    throw std::invalid_argument("wireseal::smb: AES-GMAC signing needs dialect 3.1.1");
  }
  return SigningAlgorithm::kAesCmac;
}

// can_encrypt_with: 3.0.x encrypts with AES-128-CCM only (its cipher is implied by the
// ENCRYPTION capability); 3.1.1 with any negotiated cipher; 2.x not at all.
bool can_encrypt_with(const SessionConfig& c) {
  if (is_smb2x(c.dialect)) {
    return false;
  }
  return c.dialect == Dialect::kSmb311 || c.cipher == Cipher::kAes128Ccm;
}

// keys_for derives the session's keys; a guest or anonymous session (no key, nothing
// protected) has none.
std::optional<SessionKeys> keys_for(const SessionConfig& c) {
  if (c.session_key.empty() && c.protection == Protection::kNone) {
    return std::nullopt;
  }
  return derive_or_throw(c);
}

}  // namespace

SessionSecurity::SessionSecurity(const SessionConfig& config)
    : SessionSecurity(config, keys_for(config)) {}

SessionSecurity::SessionSecurity(const SessionConfig& config, std::optional<SessionKeys> keys)
    : session_id_(config.session_id), protection_(config.protection) {
  if (!keys) {
    return;
  }
  signer_.emplace(signing_for(config), keys->signing, config.backend);
  const bool encrypts = can_encrypt_with(config);
  if (config.protection == Protection::kEncrypted && !encrypts) {
    keys->wipe();
    throw std::invalid_argument("wireseal::smb: the dialect cannot encrypt with this cipher");
  }
  if (encrypts) {
    const bool client = config.role == Role::kClient;
    const auto mine = client ? keys->client_to_server_key() : keys->server_to_client_key();
    const auto peer = client ? keys->server_to_client_key() : keys->client_to_server_key();
    sealer_.emplace(config.cipher, mine, config.session_id,
                    TransformSealerOptions{.nonces = config.encryption_nonces,
                                           .random = config.random,
                                           .backend = config.backend});
    opener_.emplace(config.cipher, peer, config.session_id,
                    TransformOpenerOptions{.backend = config.backend});
  }
  keys->wipe();
}

Result<SessionSecurity> SessionSecurity::create(const SessionConfig& config) noexcept {
  return wireseal::detail::try_create<SessionSecurity>(config);
}

Status SessionSecurity::sign_chain(std::span<std::uint8_t> chain) noexcept {
  ChainCursor cursor(chain);
  while (!cursor.done()) {
    const Result<std::span<std::uint8_t>> member = cursor.next();
    if (!member) {
      return member.error();
    }
    if (const Status s = sign(*member); !s) {
      return s;
    }
  }
  return {};
}

Status SessionSecurity::verify(std::span<std::uint8_t> message) noexcept {
  const Result<Smb2Header> header = decode_header(message);
  if (!header) {
    return header.error();
  }
  // The signature also binds the SessionId; checked so a message signed for another session
  // cannot be spliced in.
  if (header->session_id != session_id_) {
    return Error::kWrongContext;
  }
  return signer_ ? signer_->verify(message) : Status{Error::kAuthFailed};
}

Result<std::size_t> SessionSecurity::seal(std::span<std::uint8_t> buffer,
                                          std::size_t message_len) noexcept {
  if (!sealer_) {
    return Error::kUnsupported;
  }
  return sealer_->seal(buffer, message_len);
}

Result<std::span<std::uint8_t>> SessionSecurity::open(
    std::span<std::uint8_t> transformed) noexcept {
  if (!opener_) {
    return Error::kAuthFailed;  // encrypted, but this session has no keys for it
  }
  return opener_->open(transformed);
}

}  // namespace wireseal::smb
