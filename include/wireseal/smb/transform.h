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
// Nothing here allocates after construction; in-place and disjoint buffers are supported.

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
// kTransformFlagEncrypted is Flags (3.1.1) / EncryptionAlgorithm (3.0.x) = 0x0001.
inline constexpr std::uint16_t kTransformFlagEncrypted = 0x0001;

// Cipher is the negotiated SMB 3.x cipher, valued as its Cipher ID (MS-SMB2 §2.2.3.1.2).
enum class Cipher : std::uint16_t {
  kAes128Ccm = 0x0001,
  kAes128Gcm = 0x0002,
  kAes256Ccm = 0x0003,
  kAes256Gcm = 0x0004,
};

// to_string names `cipher` ("AES-128-GCM", ...).
const char* to_string(Cipher cipher) noexcept;
// cipher_key_length is 16 for the AES-128 ciphers and 32 for the AES-256 ones.
std::size_t cipher_key_length(Cipher cipher) noexcept;
// cipher_nonce_length is 11 for CCM and 12 for GCM (the used prefix of the 16-byte Nonce).
std::size_t cipher_nonce_length(Cipher cipher) noexcept;
// aead_algorithm maps `cipher` to the crypto core's algorithm.
crypto::AeadAlgorithm aead_algorithm(Cipher cipher) noexcept;

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

struct TransformOptions {
  // first_counter is the nonce counter of the first seal; random when absent.
  std::optional<std::uint64_t> first_counter = std::nullopt;
  crypto::Backend backend = crypto::Backend::kAuto;
};

// TransformSealer encrypts messages for one session and direction, on one channel.
class TransformSealer {
 public:
  // TransformSealer schedules `key` (cipher_key_length(cipher) bytes) with a nonce source of
  // its own drawn from `random`: a session with one channel. A wrong key size throws
  // std::invalid_argument.
  TransformSealer(Cipher cipher, std::span<const std::uint8_t> key, std::uint64_t session_id,
                  RandomSource random = system_random(), TransformOptions options = {});
  // TransformSealer for a further channel of a session whose key already has `nonces` (take
  // them from the first channel's sealer: nonces()). Throws std::invalid_argument on a wrong
  // key size, null nonces or nonces of another cipher.
  TransformSealer(Cipher cipher, std::span<const std::uint8_t> key, std::uint64_t session_id,
                  std::shared_ptr<TransformNonces> nonces,
                  crypto::Backend backend = crypto::Backend::kAuto);

  Cipher cipher() const noexcept { return cipher_; }
  std::uint64_t session_id() const noexcept { return session_id_; }
  // next_counter is the nonce counter the next seal (of any channel of the key) uses.
  std::uint64_t next_counter() const noexcept { return nonces_->next_counter(); }
  // nonces is the key's nonce source, to share with the sealers of further channels.
  const std::shared_ptr<TransformNonces>& nonces() const noexcept { return nonces_; }

  // seal_in_place encrypts buffer[52, 52 + message_len) in place and writes the transform
  // header into buffer[0, 52). Returns the transformed length (52 + message_len).
  // Errors: kBufferTooSmall (buffer shorter than that), kInvalidArgument (message_len 0 or
  // over 2^32 - 1), kSequenceExhausted (no fresh nonce left). Nothing is written on error.
  Result<std::size_t> seal_in_place(std::span<std::uint8_t> buffer,
                                    std::size_t message_len) noexcept;

  // seal encrypts `message` into out[52, 52 + n) and writes the header into out[0, 52).
  // `message` must be exactly out[52, ...) (in place) or disjoint from `out` (kAliasing
  // otherwise). Same errors as seal_in_place.
  Result<std::size_t> seal(std::span<const std::uint8_t> message,
                           std::span<std::uint8_t> out) noexcept;

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
                  crypto::Backend backend = crypto::Backend::kAuto);

  Cipher cipher() const noexcept { return cipher_; }
  std::uint64_t session_id() const noexcept { return session_id_; }

  // open checks and decrypts a whole transformed message (header + ciphertext) in place and
  // returns the plaintext SMB2 message (or compound chain) as a view into `transformed`.
  // Errors: kMalformed (short, wrong ProtocolId, Flags != 0x0001, OriginalMessageSize not
  // equal to the ciphertext length, or 0), kAuthFailed (wrong SessionId — checked before
  // decryption — or bad tag; the ciphertext is zeroed on a bad tag).
  Result<std::span<std::uint8_t>> open(std::span<std::uint8_t> transformed) noexcept;

  // open_to is open with the plaintext written to out[0, n) instead (n = transformed.size() -
  // 52); `out` must be disjoint from `transformed` (kAliasing) and hold n bytes
  // (kBufferTooSmall). Returns out.first(n); zeroes it on a bad tag.
  Result<std::span<std::uint8_t>> open_to(std::span<const std::uint8_t> transformed,
                                          std::span<std::uint8_t> out) noexcept;

 private:
  Status check(std::span<const std::uint8_t> transformed) const noexcept;

  crypto::Aead aead_;
  Cipher cipher_;
  std::uint64_t session_id_;
};

}  // namespace wireseal::smb
