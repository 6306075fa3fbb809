#pragma once
// TLS 1.2 key derivation for the record layer (RFC 5246 §6.3, §8.1; RFC 7627).
//
//   key_block = PRF(master_secret, "key expansion", server_random + client_random)
//   split as client_write_MAC_key | server_write_MAC_key | client_write_key |
//            server_write_key | client_write_IV | server_write_IV

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/dtls/record_cipher.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

inline constexpr std::size_t kMasterSecretSize = 48;
inline constexpr std::size_t kRandomSize = 32;

// DirectionKeys are the keys that protect one direction (views into a KeyBlock).
struct DirectionKeys {
  std::span<const std::uint8_t> mac_key;
  std::span<const std::uint8_t> enc_key;
  std::span<const std::uint8_t> iv;
};

enum class Direction : std::uint8_t { kClientWrite, kServerWrite };

// KeyBlock holds the expanded key material of one epoch; wiped on destruction. It is
// move-only and remembers which directions a RecordSealer was built for: each direction's
// keys seal under one sealer only, so no (keys, epoch, sequence) nonce can be produced twice
// from one KeyBlock (see RecordSealer).
class KeyBlock {
 public:
  // KeyBlock adopts raw key-block bytes laid out as RFC 5246 §6.3 says for `cipher`
  // (e.g. from a key log or another implementation). Returns kInvalidArgument on size mismatch.
  static Result<KeyBlock> from_bytes(RecordCipher cipher,
                                     std::span<const std::uint8_t> bytes) noexcept;

  // derive runs the PRF ("key expansion") over the master secret and the two randoms.
  static Result<KeyBlock> derive(RecordCipher cipher, crypto::HashAlgorithm prf_hash,
                                 std::span<const std::uint8_t, kMasterSecretSize> master_secret,
                                 std::span<const std::uint8_t, kRandomSize> client_random,
                                 std::span<const std::uint8_t, kRandomSize> server_random) noexcept;

  // size returns the key-block length `cipher` needs.
  static std::size_t size(RecordCipher cipher) noexcept;

  KeyBlock(const KeyBlock&) = delete;
  KeyBlock& operator=(const KeyBlock&) = delete;
  // Moving transfers the keys and what was claimed, and wipes the source.
  KeyBlock(KeyBlock&& other) noexcept;
  KeyBlock& operator=(KeyBlock&& other) noexcept;
  ~KeyBlock();

  RecordCipher cipher() const noexcept { return cipher_; }
  DirectionKeys keys(Direction direction) const noexcept;
  std::span<const std::uint8_t> bytes() const noexcept { return {bytes_.data(), len_}; }

  // claim_for_sealing hands out `direction`'s keys for the one sealer they may have;
  // kBadState when that direction was claimed before.
  Result<DirectionKeys> claim_for_sealing(Direction direction) noexcept;

 private:
  KeyBlock(RecordCipher cipher, std::size_t len) noexcept : cipher_(cipher), len_(len) {}
  RecordCipher cipher_;
  std::size_t len_;
  std::uint8_t claimed_ = 0;  // bit per Direction
  std::array<std::uint8_t, 2 * (48 + 32 + 16)> bytes_{};
};

// master_secret computes PRF(pre_master_secret, "master secret", client_random + server_random)
// (RFC 5246 §8.1).
Status master_secret(crypto::HashAlgorithm prf_hash,
                     std::span<const std::uint8_t> pre_master_secret,
                     std::span<const std::uint8_t, kRandomSize> client_random,
                     std::span<const std::uint8_t, kRandomSize> server_random,
                     std::span<std::uint8_t, kMasterSecretSize> out) noexcept;

// extended_master_secret computes PRF(pre_master_secret, "extended master secret",
// session_hash) (RFC 7627 §4).
Status extended_master_secret(crypto::HashAlgorithm prf_hash,
                              std::span<const std::uint8_t> pre_master_secret,
                              std::span<const std::uint8_t> session_hash,
                              std::span<std::uint8_t, kMasterSecretSize> out) noexcept;

// psk_pre_master_secret writes the PSK pre-master secret into `out` (RFC 4279 §2):
// uint16 length of other_secret, other_secret, uint16 length of psk, psk — with other_secret
// N zero bytes for a plain PSK suite (`other_secret` empty, N = psk.size()) or the ECDH
// shared secret for ECDHE_PSK (RFC 5489 §2). Returns its size; kInvalidArgument for an empty
// or over-long (> 2^16 - 1) psk, kBufferTooSmall.
Result<std::size_t> psk_pre_master_secret(std::span<const std::uint8_t> psk,
                                          std::span<const std::uint8_t> other_secret,
                                          std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls
