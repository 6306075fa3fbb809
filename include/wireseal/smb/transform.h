#pragma once
// SMB 3.x message encryption: the 52-byte SMB2 TRANSFORM_HEADER (MS-SMB2 §2.2.41) and the
// AEAD seal/open of §3.1.4.3 / §3.2.5.1.1 for AES-128/256-CCM and AES-128/256-GCM.
//
//    0                   4                  20                 36       40     42     44
//   +-------------------+------------------+------------------+--------+------+------+---------+
//   | 0xFD 'S' 'M' 'B'  | Signature (16)   | Nonce (16)       | OrigSz | Rsvd | Flags| SessId  |
//   +-------------------+------------------+------------------+--------+------+------+---------+
//                        = AEAD tag          CCM: 11 bytes used  (4)     (2)    0x0001  (8)
//                                            GCM: 12 bytes used
//   AAD = header bytes 20..51 (everything after the Signature); ciphertext = the SMB2 message
//   (or a whole compound chain), same length as the plaintext, directly after the header.
//
// Nonces (§3.1.4.3: unique per message under one key). SMB 3.x shares one encryption key
// between every channel of a multichannel session, so uniqueness belongs to the key, not to
// a connection: TransformNonces is the one nonce source of one key, and every TransformSealer
// that seals with the key — one per channel — draws from the same TransformNonces (shared by
// std::shared_ptr, thread-safe). Each nonce is an 8-byte little-endian counter followed by 3
// (CCM) or 4 (GCM) random bytes, the layout Samba uses; the counter starts at a random value
// below 2^63 and only counts up, refusing (kSequenceExhausted) before it would wrap. Even two
// TransformNonces wrongly made for the same key then collide only if their salts match
// (2^-24 for CCM, 2^-32 for GCM) and their counter ranges overlap (2^-31 for 2^32 messages
// each), far beyond any real session.
//
// Nothing here allocates after construction. Buffers, as everywhere in wireseal: in place when
// the input already sits where the output goes (the message at out[52] for seal, the output at
// the transformed message's own address for open), otherwise disjoint; any other overlap is
// kAliasing.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "wireseal/crypto/aead.h"
#include "wireseal/random.h"
#include "wireseal/result.h"

namespace wireseal::smb {

inline constexpr std::size_t kTransformHeaderSize = 52;
inline constexpr std::size_t kTransformSignatureOffset = 4;
inline constexpr std::size_t kTransformNonceOffset = 20;
inline constexpr std::size_t kTransformNonceSize = 16;
inline constexpr std::size_t kTransformAadOffset = 20;  // AAD = header[20, 52)
inline constexpr std::size_t kTransformTagSize = 16;
// kTransformProtocolId is the first four bytes of every transformed message.
inline constexpr std::array<std::uint8_t, 4> kTransformProtocolId = {0xFD, 'S', 'M', 'B'};
// kTransformFlagEncrypted is Flags (3.1.1) / EncryptionAlgorithm (3.0.x) = 0x0001.
inline constexpr std::uint16_t kTransformFlagEncrypted = 0x0001;

// Cipher is the negotiated SMB 3.x cipher, valued as its Cipher ID (MS-SMB2 §2.2.3.1.2).
enum class Cipher : std::uint16_t {
  kAes128Ccm = 0x0001,
  kAes128Gcm = 0x0002,
  kAes256Ccm = 0x0003,
  kAes256Gcm = 0x0004,
};

// CipherInfo is one row of the cipher table (transform_header.cc), in the style of the other
// protocols' descriptors (dtls::RecordCipherInfo, srtp::ProfileInfo, crypto::AeadInfo).
struct CipherInfo {
  Cipher cipher;
  const char* name;            // "AES-128-GCM", ...
  crypto::AeadAlgorithm aead;  // the crypto core's algorithm
  std::size_t key_len;         // 16 (AES-128) or 32 (AES-256)
  std::size_t nonce_len;       // 11 (CCM) or 12 (GCM): the used prefix of the 16-byte Nonce
  std::size_t tag_len;         // 16: the Signature field
  std::uint64_t max_messages;  // nonces per key: the 64-bit counter (TransformNonces)
};

// info returns the table row of `cipher` (a static object, valid forever).
const CipherInfo& info(Cipher cipher) noexcept;
// to_string names `cipher` (info(cipher).name).
const char* to_string(Cipher cipher) noexcept;

// TransformHeader is the decoded header.
struct TransformHeader {
  std::array<std::uint8_t, kTransformTagSize> signature{};
  std::array<std::uint8_t, kTransformNonceSize> nonce{};
  std::uint32_t original_message_size = 0;
  std::uint16_t flags = kTransformFlagEncrypted;
  std::uint64_t session_id = 0;
};

// encode_transform_header writes `header` into out[0, 52) (Reserved = 0). kBufferTooSmall,
// writing nothing, when out is shorter.
Status encode_transform_header(const TransformHeader& header, std::span<std::uint8_t> out) noexcept;
// decode_transform_header reads the first 52 bytes of `bytes`. kMalformed when fewer are
// given or the ProtocolId is not 0xFD 'S' 'M' 'B'. Other fields are returned as found.
Result<TransformHeader> decode_transform_header(std::span<const std::uint8_t> bytes) noexcept;
// is_transform_message is true when `bytes` starts with 0xFD 'S' 'M' 'B'.
bool is_transform_message(std::span<const std::uint8_t> bytes) noexcept;
// transformed_size is the size of the transformed message for a `message_len`-byte message.
constexpr std::size_t transformed_size(std::size_t message_len) noexcept {
  return kTransformHeaderSize + message_len;
}

// TransformNonces hands out the nonces of one encryption key (see above). Thread-safe.
class TransformNonces {
 public:
  // TransformNonces draws the salt, and the first counter unless `first_counter` is given
  // (known-answer tests; tests near exhaustion), from `random`.
  explicit TransformNonces(Cipher cipher, RandomSource random = system_random(),
                           std::optional<std::uint64_t> first_counter = std::nullopt);
  TransformNonces(const TransformNonces&) = delete;
  TransformNonces& operator=(const TransformNonces&) = delete;

  Cipher cipher() const noexcept { return cipher_; }
  // next_counter is the counter the next nonce gets.
  std::uint64_t next_counter() const noexcept { return counter_.load(std::memory_order_relaxed); }
  // next writes a fresh nonce into out[0, 16) (zero after the cipher's nonce length) and
  // consumes it; kSequenceExhausted, writing nothing, when the counter is used up.
  Status next(std::span<std::uint8_t, kTransformNonceSize> out) noexcept;

 private:
  Cipher cipher_;
  std::atomic<std::uint64_t> counter_;
  std::array<std::uint8_t, 4> salt_{};
};

// TransformSealerOptions configure a sealer.
struct TransformSealerOptions {
  // nonces is the nonce source of the key. Every channel of one session seals with the same
  // key, so the sealers of further channels take the first one's (nonces()). Null: the sealer
  // makes its own from `random` and `first_counter` — a session with one channel.
  std::shared_ptr<TransformNonces> nonces{};
  RandomSource random = system_random();  // salt and first counter of an own nonce source
  // first_counter is the nonce counter of the first seal (own nonce source only); random
  // when absent.
  std::optional<std::uint64_t> first_counter = std::nullopt;
  crypto::Backend backend = crypto::Backend::kAuto;
};

// TransformOpenerOptions configure an opener.
struct TransformOpenerOptions {
  crypto::Backend backend = crypto::Backend::kAuto;
};

// TransformSealer encrypts messages for one session and direction, on one channel.
class TransformSealer {
 public:
  // TransformSealer schedules `key` (info(cipher).key_len bytes). Misuse throws
  // std::invalid_argument: a wrong key size, nonces of another cipher, or a first_counter
  // beside shared nonces.
  TransformSealer(Cipher cipher, std::span<const std::uint8_t> key, std::uint64_t session_id,
                  TransformSealerOptions options = {});
  // create is the constructor that never throws (kInvalidArgument, kOutOfMemory).
  static Result<TransformSealer> create(Cipher cipher, std::span<const std::uint8_t> key,
                                        std::uint64_t session_id,
                                        TransformSealerOptions options = {}) noexcept;

  Cipher cipher() const noexcept { return cipher_; }
  std::uint64_t session_id() const noexcept { return session_id_; }
  // next_counter is the nonce counter the next seal (of any channel of the key) uses.
  std::uint64_t next_counter() const noexcept { return nonces_->next_counter(); }
  // nonces is the key's nonce source, to share with the sealers of further channels.
  const std::shared_ptr<TransformNonces>& nonces() const noexcept { return nonces_; }

  // --- sizes (exact)
  // payload_offset is where a message placed in the output buffer is sealed in place (52).
  static constexpr std::size_t payload_offset() noexcept { return kTransformHeaderSize; }
  // sealed_size is the transformed length of a `message_len`-byte message.
  static constexpr std::size_t sealed_size(std::size_t message_len) noexcept {
    return kTransformHeaderSize + message_len;
  }
  // overhead is sealed_size(n) - n: the 52-byte header.
  static constexpr std::size_t overhead() noexcept { return kTransformHeaderSize; }
  // max_plaintext_size is the largest message whose transformed form fits `buffer_len` bytes.
  static constexpr std::size_t max_plaintext_size(std::size_t buffer_len) noexcept {
    return buffer_len > kTransformHeaderSize ? buffer_len - kTransformHeaderSize : 0;
  }

  // seal encrypts `message` into out[52, 52 + n) and writes the header into out[0, 52), and
  // returns the transformed length (52 + n). `message` must be exactly out[52, ...) (in
  // place) or disjoint from `out`. Errors: kBufferTooSmall (out shorter than that),
  // kAliasing, kInvalidArgument (an empty message, or one over 2^32 - 1 bytes),
  // kSequenceExhausted (no fresh nonce left). Nothing is written on error.
  Result<std::size_t> seal(std::span<const std::uint8_t> message,
                           std::span<std::uint8_t> out) noexcept;
  // seal in place: the message is buffer[52, 52 + message_len). Same errors.
  Result<std::size_t> seal(std::span<std::uint8_t> buffer, std::size_t message_len) noexcept;

 private:
  crypto::Aead aead_;
  Cipher cipher_;
  std::uint64_t session_id_;
  std::shared_ptr<TransformNonces> nonces_;
};

// TransformOpener authenticates and decrypts messages for one session and direction.
class TransformOpener {
 public:
  // TransformOpener schedules `key`; a wrong key size throws std::invalid_argument.
  TransformOpener(Cipher cipher, std::span<const std::uint8_t> key, std::uint64_t session_id,
                  TransformOpenerOptions options = {});
  // create is the constructor that never throws (kInvalidArgument, kOutOfMemory).
  static Result<TransformOpener> create(Cipher cipher, std::span<const std::uint8_t> key,
                                        std::uint64_t session_id,
                                        TransformOpenerOptions options = {}) noexcept;

  Cipher cipher() const noexcept { return cipher_; }
  std::uint64_t session_id() const noexcept { return session_id_; }
  // opened_size is the plaintext length of a `transformed_len`-byte transformed message.
  static constexpr std::size_t opened_size(std::size_t transformed_len) noexcept {
    return transformed_len > kTransformHeaderSize ? transformed_len - kTransformHeaderSize : 0;
  }

  // open checks and decrypts a whole transformed message (header + ciphertext) in place and
  // returns the plaintext SMB2 message (or compound chain) as a view into `transformed`.
  // Errors: kMalformed (short, wrong ProtocolId, Flags != 0x0001, OriginalMessageSize not
  // equal to the ciphertext length, or 0), kWrongContext (another SessionId — checked before
  // decryption), kAuthFailed (bad tag; the ciphertext is zeroed).
  Result<std::span<std::uint8_t>> open(std::span<std::uint8_t> transformed) noexcept;
  // open out of place: the plaintext is written to out[0, n) (n = opened_size) and returned.
  // `out` is disjoint from `transformed` and holds n bytes, or starts at the same address and
  // covers the whole message (the message is then decrypted in place and moved to the front);
  // kAliasing or kBufferTooSmall otherwise. Zeroed on a bad tag.
  Result<std::span<std::uint8_t>> open(std::span<const std::uint8_t> transformed,
                                       std::span<std::uint8_t> out) noexcept;

 private:
  Status check(std::span<const std::uint8_t> transformed) const noexcept;

  crypto::Aead aead_;
  Cipher cipher_;
  std::uint64_t session_id_;
};

}  // namespace wireseal::smb
