#pragma once
// SHA-1 and SHA-2 digests (FIPS 180-4) with no allocation: Hash keeps one running hash on the
// caller's stack, for the handshake transcripts and SMB's preauth integrity hash, and Hmac
// (hmac.h) builds on the same states.

#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::crypto {

enum class HashAlgorithm : std::uint8_t { kSha1, kSha224, kSha256, kSha384, kSha512 };

// to_string names `hash` ("SHA-1", "SHA-256", ...).
const char* to_string(HashAlgorithm hash) noexcept;
// digest_length returns the output size of `hash` in bytes (20, 28, 32, 48, 64).
std::size_t digest_length(HashAlgorithm hash) noexcept;
// block_length returns the compression block size of `hash` in bytes (64 or 128).
std::size_t block_length(HashAlgorithm hash) noexcept;

inline constexpr std::size_t kMaxDigestLength = 64;

// HashState is opaque storage for one running hash (large enough for SHA-512).
struct HashState {
  alignas(16) std::uint8_t bytes[224];
};

// Hash is one running digest: update() any number of times, then finish() once. It lives on
// the stack (no allocation) and wipes its state when destroyed. Copying it forks the hash,
// e.g. to take a transcript hash so far and keep going.
class Hash {
 public:
  explicit Hash(HashAlgorithm hash) noexcept;
  ~Hash();
  Hash(const Hash&) = default;
  Hash& operator=(const Hash&) = default;

  HashAlgorithm algorithm() const noexcept { return hash_; }
  std::size_t digest_length() const noexcept { return crypto::digest_length(hash_); }

  // update absorbs `data`; after finish() it is ignored (finish reports kBadState).
  void update(std::span<const std::uint8_t> data) noexcept;
  // finish writes the digest to the first digest_length() bytes of `out`: kBufferTooSmall if
  // `out` is shorter, kBadState if already finished.
  Status finish(std::span<std::uint8_t> out) noexcept;

  // digest computes the hash of `data` in one call (the same errors as finish).
  static Status digest(HashAlgorithm hash, std::span<const std::uint8_t> data,
                       std::span<std::uint8_t> out) noexcept;

 private:
  HashState state_;
  HashAlgorithm hash_;
  bool finished_ = false;
};

}  // namespace wireseal::crypto
