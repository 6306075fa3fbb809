#pragma once
// AES modes without authentication: AesCtr (SRTP AES-CM, CCM/GCM building block) and AesCbc
// (TLS/DTLS CBC suites). Both schedule the key once, take caller buffers and never allocate
// after construction. `in` and `out` may be identical or disjoint; partial overlap returns
// Error::kAliasing.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/crypto/backend.h"
#include "wireseal/result.h"

namespace wireseal::crypto {

inline constexpr std::size_t kAesBlockSize = 16;

namespace detail {
class AesModeImpl;
struct CbcHmacAccess;
}  // namespace detail

// CtrJob is one message of AesCtr::apply_batch.
struct CtrJob {
  std::span<const std::uint8_t, 16> counter_block;
  std::span<const std::uint8_t> in;
  std::span<std::uint8_t> out;
  Status status;
};

class AesCtr {
 public:
  // AesCtr schedules a 16-, 24- or 32-byte key; other sizes throw std::invalid_argument.
  explicit AesCtr(std::span<const std::uint8_t> key, Backend backend = Backend::kAuto);
  ~AesCtr();
  AesCtr(AesCtr&&) noexcept;
  AesCtr& operator=(AesCtr&&) noexcept;

  Backend backend() const noexcept { return backend_; }

  // apply XORs `in` with the keystream E(K, cb), E(K, cb+1), ... into `out`, where cb is
  // `counter_block` read as a 128-bit big-endian integer (the whole block is incremented, as in
  // NIST SP 800-38A; SRTP's IV has 16 zero low bits so this equals RFC 3711 AES-CM).
  Status apply(std::span<const std::uint8_t, 16> counter_block, std::span<const std::uint8_t> in,
               std::span<std::uint8_t> out) noexcept;

  void apply_batch(std::span<CtrJob> jobs) noexcept;

 private:
  std::unique_ptr<detail::AesModeImpl> impl_;
  Backend backend_;
};

// CbcJob is one message of AesCbc::encrypt_batch; `iv` must be 16 bytes.
struct CbcJob {
  std::span<const std::uint8_t> iv;
  std::span<const std::uint8_t> in;
  std::span<std::uint8_t> out;
  Status status;
};

class AesCbc {
 public:
  // AesCbc schedules a 16-, 24- or 32-byte key; other sizes throw std::invalid_argument.
  explicit AesCbc(std::span<const std::uint8_t> key, Backend backend = Backend::kAuto);
  ~AesCbc();
  AesCbc(AesCbc&&) noexcept;
  AesCbc& operator=(AesCbc&&) noexcept;

  Backend backend() const noexcept { return backend_; }

  // encrypt / decrypt process whole blocks: in.size() must be a multiple of 16 (no padding;
  // framing is the caller's), else kInvalidArgument.
  Status encrypt(std::span<const std::uint8_t, 16> iv, std::span<const std::uint8_t> in,
                 std::span<std::uint8_t> out) noexcept;
  Status decrypt(std::span<const std::uint8_t, 16> iv, std::span<const std::uint8_t> in,
                 std::span<std::uint8_t> out) noexcept;

  // encrypt_batch encrypts independent messages. CBC encryption is serial within a message, so
  // the native backend advances up to 8 messages in lockstep (8 AES chains in flight instead
  // of one). Results equal encrypt() per job.
  void encrypt_batch(std::span<CbcJob> jobs) noexcept;

 private:
  friend struct detail::CbcHmacAccess;  // cbc_hmac.h's stitched kernels
  std::unique_ptr<detail::AesModeImpl> impl_;
  Backend backend_;
};

}  // namespace wireseal::crypto
