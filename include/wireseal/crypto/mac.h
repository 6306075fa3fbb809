#pragma once
// Block-cipher MACs: AesCmac (NIST SP 800-38B / RFC 4493, SMB 3.0 signing) and AesGmac
// (NIST SP 800-38D GMAC, SMB 3.1.1 signing). Keys are scheduled once; no allocation after
// construction; verify compares in constant time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/backend.h"
#include "wireseal/result.h"

namespace wireseal::crypto {

inline constexpr std::size_t kCmacLength = 16;
inline constexpr std::size_t kGmacLength = 16;

namespace detail {
class CmacImpl;
}

// CmacJob is one message of AesCmac::compute_batch; `out` gets 1..16 bytes of the MAC.
struct CmacJob {
  std::span<const std::uint8_t> message;
  std::span<std::uint8_t> out;
  Status status;
};

class AesCmac {
 public:
  // AesCmac schedules a 16-, 24- or 32-byte key; other sizes throw std::invalid_argument.
  explicit AesCmac(std::span<const std::uint8_t> key, Backend backend = Backend::kAuto);
  ~AesCmac();
  AesCmac(AesCmac&&) noexcept;
  AesCmac& operator=(AesCmac&&) noexcept;

  Backend backend() const noexcept { return backend_; }

  // compute writes the first out.size() (1..16) bytes of CMAC(key, message).
  Status compute(std::span<const std::uint8_t> message, std::span<std::uint8_t> out) noexcept;
  // verify checks a (possibly truncated, 1..16 bytes) tag in constant time.
  bool verify(std::span<const std::uint8_t> message, std::span<const std::uint8_t> tag) noexcept;
  void compute_batch(std::span<CmacJob> jobs) noexcept;

 private:
  std::unique_ptr<detail::CmacImpl> impl_;
  Backend backend_;
};

class AesGmac {
 public:
  // AesGmac schedules a 16- or 32-byte key; other sizes throw std::invalid_argument.
  explicit AesGmac(std::span<const std::uint8_t> key, Backend backend = Backend::kAuto);

  Backend backend() const noexcept { return gcm_.backend(); }

  // compute writes the first out.size() (1..16) bytes of GMAC(key, nonce, message), i.e. the
  // GCM tag of an empty plaintext with `message` as additional data.
  Status compute(std::span<const std::uint8_t, 12> nonce, std::span<const std::uint8_t> message,
                 std::span<std::uint8_t> out) noexcept;
  bool verify(std::span<const std::uint8_t, 12> nonce, std::span<const std::uint8_t> message,
              std::span<const std::uint8_t> tag) noexcept;

 private:
  Aead gcm_;
};

}  // namespace wireseal::crypto
