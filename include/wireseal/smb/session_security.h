#pragma once
// SessionSecurity: the keys of one SMB 3.x session on one channel, and the four things done with
// them (MS-SMB2 §3.1.4.1 signing, §3.1.4.3 encryption, §3.2.5.1.1 decryption, §3.2.5.1.3
// verification). A Connection holds one per session set up on it (several sessions share a
// connection, keyed by SessionId); SecureChannel holds exactly one.
//
// The keys are derived once, at construction, from the session key and (3.1.1) the session's
// preauth integrity hash. A session can always sign; it can encrypt when the dialect has
// encryption and `cipher` is one the dialect allows (3.0.x: AES-128-CCM only). Which messages
// are signed or sealed is the caller's choice per message — a session may encrypt only the
// trees whose share asks for it — but `protection` in the config is the session's floor:
// kEncrypted means nothing unencrypted is sent or accepted for this session.
//
// Nothing allocates after construction.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "wireseal/result.h"
#include "wireseal/smb/keys.h"
#include "wireseal/smb/session_config.h"
#include "wireseal/smb/signing.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb {

class SessionSecurity {
 public:
  // SessionSecurity derives the session keys from `config` and keys the signer, and the sealer
  // and opener where the session can encrypt, for config.role. Misuse (key sizes, a 3.1.1
  // session without preauth hash, kEncrypted with a cipher the dialect lacks, a signing
  // algorithm the dialect lacks) throws std::invalid_argument.
  // A config with no session key and protection kNone makes a keyless session (guest or
  // anonymous).
  explicit SessionSecurity(const SessionConfig& config);
  // create is the constructor that never throws (kInvalidArgument, kOutOfMemory).
  static Result<SessionSecurity> create(const SessionConfig& config) noexcept;

  std::uint64_t session_id() const noexcept { return session_id_; }
  // protection is the session's floor (see above).
  Protection protection() const noexcept { return protection_; }
  bool can_encrypt() const noexcept { return sealer_.has_value(); }
  // encryption_nonces is the nonce source of the key this session seals with (null when it
  // cannot encrypt): every further channel of the session seals with it.
  std::shared_ptr<TransformNonces> encryption_nonces() const noexcept {
    return sealer_ ? sealer_->nonces() : nullptr;
  }

  // keyless is a guest or anonymous session: no key, so nothing is signed or sealed, and a
  // signed message claiming to be the session's fails verify().
  bool keyless() const noexcept { return !signer_.has_value(); }

  // sign signs one message (a compound member, up to its NextCommand); kUnsupported keyless.
  Status sign(std::span<std::uint8_t> message) noexcept {
    return signer_ ? signer_->sign(message) : Status{Error::kUnsupported};
  }
  // sign_chain signs each member of a compound chain on its own (§3.2.4.1.4).
  Status sign_chain(std::span<std::uint8_t> chain) noexcept;
  // verify checks one message's signature (kAuthFailed when missing or wrong) and that it is
  // this session's (kWrongContext).
  Status verify(std::span<std::uint8_t> message) noexcept;
  // seal encrypts the message (or chain) at buffer[52, 52 + message_len) in place and writes the
  // transform header before it; returns 52 + message_len. kUnsupported when the session cannot
  // encrypt; the errors of TransformSealer::seal.
  Result<std::size_t> seal(std::span<std::uint8_t> buffer, std::size_t message_len) noexcept;
  // open checks and decrypts one transformed message in place (TransformOpener::open).
  Result<std::span<std::uint8_t>> open(std::span<std::uint8_t> transformed) noexcept;

 private:
  SessionSecurity(const SessionConfig& config, std::optional<SessionKeys> keys);

  std::uint64_t session_id_;
  Protection protection_;
  std::optional<Signer> signer_;
  std::optional<TransformSealer> sealer_;
  std::optional<TransformOpener> opener_;
};

}  // namespace wireseal::smb
