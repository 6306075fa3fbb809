#pragma once
// SMB2/3 message signing and verification (MS-SMB2 §3.1.4.1, §3.1.5.1).
//
//   dialect 2.0.2, 2.1   HMAC-SHA256(SessionKey, message), first 16 bytes
//   dialect 3.0, 3.0.2   AES-128-CMAC(SigningKey, message)
//   dialect 3.1.1        AES-128-CMAC, or AES-128-GMAC when negotiated (SMB2_SIGNING_CAPABILITIES):
//                        nonce = MessageId (8, LE) || uint32 LE with bit 0 = server-to-client
//                        (SMB2_FLAGS_SERVER_TO_REDIR) and bit 1 = the message is a CANCEL
//
// The MAC covers the whole message (header and body; for a compound member, up to its
// NextCommand including padding) with the 16-byte Signature field zeroed, and is written into
// that field. Verification compares in constant time. No allocation after construction.

#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>

#include "wireseal/crypto/backend.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/crypto/mac.h"
#include "wireseal/result.h"

namespace wireseal::smb {

// SigningAlgorithm values are the SigningAlgorithmId of MS-SMB2 §2.2.3.1.7.
enum class SigningAlgorithm : std::uint16_t {
  kHmacSha256 = 0x0000,
  kAesCmac = 0x0001,
  kAesGmac = 0x0002,
};

// to_string names `algorithm` ("HMAC-SHA256", "AES-128-CMAC", "AES-128-GMAC").
const char* to_string(SigningAlgorithm algorithm) noexcept;

class Signer {
 public:
  // Signer keys `algorithm` with `signing_key` (16 bytes for CMAC/GMAC; any length for
  // HMAC-SHA256, where SMB uses the 16-byte session key). A wrong key size throws
  // std::invalid_argument.
  Signer(SigningAlgorithm algorithm, std::span<const std::uint8_t> signing_key,
         crypto::Backend backend = crypto::Backend::kAuto);
  // create is the constructor that never throws (kInvalidArgument, kOutOfMemory).
  static Result<Signer> create(SigningAlgorithm algorithm,
                               std::span<const std::uint8_t> signing_key,
                               crypto::Backend backend = crypto::Backend::kAuto) noexcept;

  SigningAlgorithm algorithm() const noexcept { return algorithm_; }

  // sign sets SMB2_FLAGS_SIGNED in `message`'s header, zeroes the Signature field, computes
  // the MAC over all of `message` and writes it into the Signature field. `message` is one
  // message (a compound member up to its NextCommand). kMalformed if it is shorter than a
  // header or not an SMB2 message; the message is then unchanged.
  Status sign(std::span<std::uint8_t> message) noexcept;

  // verify checks the Signature of `message`: it requires SMB2_FLAGS_SIGNED, recomputes the
  // MAC with the field zeroed and compares in constant time. The message bytes are restored
  // before returning (the buffer is modified only during the call). kMalformed for a short or
  // non-SMB2 message, kAuthFailed when the flag is missing or the signature is wrong.
  Status verify(std::span<std::uint8_t> message) noexcept;

  // compute writes the 16-byte MAC of `message` as is (Signature field not touched) into
  // `out`; sign/verify are built on it. kInvalidArgument when out is not 16 bytes.
  Status compute(std::span<const std::uint8_t> message, std::span<std::uint8_t> out) noexcept;

 private:
  SigningAlgorithm algorithm_;
  std::variant<crypto::Hmac, crypto::AesCmac, crypto::AesGmac> mac_;
};

}  // namespace wireseal::smb
