#pragma once
// SessionConfig: what one SMB session's security is built from (SessionSecurity, SecureChannel,
// ClientEngine): the negotiated dialect and algorithms, the SessionId, the session key and the
// preauth hash of SESSION_SETUP.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/crypto/backend.h"
#include "wireseal/random.h"
#include "wireseal/result.h"
#include "wireseal/smb/keys.h"
#include "wireseal/smb/signing.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb {

enum class Role : std::uint8_t { kClient, kServer };
enum class Protection : std::uint8_t { kNone, kSigned, kEncrypted };

struct SessionConfig {
  Role role = Role::kClient;
  Protection protection = Protection::kEncrypted;
  Dialect dialect = Dialect::kSmb311;
  Cipher cipher = Cipher::kAes128Gcm;                     // kEncrypted
  SigningAlgorithm signing = SigningAlgorithm::kAesGmac;  // kSigned (2.x: HMAC-SHA256 forced)
  std::uint64_t session_id = 0;
  std::span<const std::uint8_t> session_key;   // 16 bytes (32 for AES-256 ciphers)
  std::span<const std::uint8_t> preauth_hash;  // 64 bytes for 3.1.1
  std::size_t max_message_len = 1 << 20;       // largest message or compound chain, each way
  // kEncrypted: the nonce source of this side's encryption key. Every channel of one session
  // (multichannel, MS-SMB2 §3.2.4.1.7) seals with the same key, so they must share one: pass
  // the first channel's encryption_nonces() to the others. Null: this channel makes its own.
  std::shared_ptr<TransformNonces> encryption_nonces;
  RandomSource random = system_random();
  crypto::Backend backend = crypto::Backend::kAuto;
};

// ChannelCounters count messages sent and received, and received messages dropped by reason:
// dropped.auth for a bad tag or signature or missing protection, dropped.wrong_context for
// another SessionId, dropped.replay (ClientEngine) for a response with no request in flight.
struct ChannelCounters {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  DropCounters dropped;
};

}  // namespace wireseal::smb
