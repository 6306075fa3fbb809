// SMB2/3 signing (MS-SMB2 §3.1.4.1) and verification (§3.1.5.1).
#include "wireseal/smb/signing.h"

#include <array>
#include <cstring>
#include <stdexcept>

#include "common/bytes.h"
#include "common/create.h"
#include "common/ct.h"
#include "wireseal/smb/header.h"

namespace wireseal::smb {
namespace {

constexpr std::size_t kFlagsOffset = 16;
constexpr std::size_t kCommandOffset = 12;
constexpr std::size_t kMessageIdOffset = 24;
constexpr std::uint32_t kGmacNonceServerToClient = 0x1;
constexpr std::uint32_t kGmacNonceCancel = 0x2;

std::variant<crypto::Hmac, crypto::AesCmac, crypto::AesGmac> make_mac(
    SigningAlgorithm algorithm, std::span<const std::uint8_t> key, crypto::Backend backend) {
  switch (algorithm) {
    case SigningAlgorithm::kHmacSha256:
      return crypto::Hmac(crypto::HashAlgorithm::kSha256, key);
    case SigningAlgorithm::kAesCmac:
      if (key.size() != 16) {
        throw std::invalid_argument("wireseal::smb: AES-CMAC signing key must be 16 bytes");
      }
      return crypto::AesCmac(key, backend);
    case SigningAlgorithm::kAesGmac:
      if (key.size() != 16) {
        throw std::invalid_argument("wireseal::smb: AES-GMAC signing key must be 16 bytes");
      }
      return crypto::AesGmac(key, backend);
  }
  throw std::invalid_argument("wireseal::smb: unknown signing algorithm");
}

}  // namespace

const char* to_string(SigningAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case SigningAlgorithm::kHmacSha256:
      return "HMAC-SHA256";
    case SigningAlgorithm::kAesCmac:
      return "AES-128-CMAC";
    case SigningAlgorithm::kAesGmac:
      return "AES-128-GMAC";
  }
  return "unknown";
}

Signer::Signer(SigningAlgorithm algorithm, std::span<const std::uint8_t> signing_key,
               crypto::Backend backend)
    : algorithm_(algorithm), mac_(make_mac(algorithm, signing_key, backend)) {}

Result<Signer> Signer::create(SigningAlgorithm algorithm, std::span<const std::uint8_t> signing_key,
                              crypto::Backend backend) noexcept {
  return wireseal::detail::try_create<Signer>(algorithm, signing_key, backend);
}

Status Signer::compute(std::span<const std::uint8_t> message,
                       std::span<std::uint8_t> out) noexcept {
  if (out.size() != kSignatureSize) {
    return Error::kInvalidArgument;
  }
  if (message.size() < kHeaderSize) {
    return Error::kMalformed;
  }
  switch (algorithm_) {
    case SigningAlgorithm::kHmacSha256:
      // §3.1.4.1: the first 16 bytes of the 32-byte HMAC-SHA256.
      return std::get<crypto::Hmac>(mac_).compute(message, out);
    case SigningAlgorithm::kAesCmac:
      return std::get<crypto::AesCmac>(mac_).compute(message, out);
    case SigningAlgorithm::kAesGmac: {
      // §3.1.4.1 / §2.2.3.1.7: AES_GMAC_Nonce = MessageId || {Role:1, IsCancel:1, 30 zero bits}.
      std::array<std::uint8_t, 12> nonce;
      std::memcpy(nonce.data(), message.data() + kMessageIdOffset, 8);
      const std::uint32_t flags = load_le32(message.data() + kFlagsOffset);
      const auto command = static_cast<Command>(load_le16(message.data() + kCommandOffset));
      std::uint32_t role = 0;
      if ((flags & kFlagServerToRedir) != 0) {
        role |= kGmacNonceServerToClient;
      }
      if (command == Command::kCancel) {
        role |= kGmacNonceCancel;
      }
      store_le32(nonce.data() + 8, role);
      return std::get<crypto::AesGmac>(mac_).compute(nonce, message, out);
    }
  }
  return Error::kUnsupported;
}

Status Signer::sign(std::span<std::uint8_t> message) noexcept {
  if (message.size() < kHeaderSize || !is_smb2_message(message)) {
    return Error::kMalformed;
  }
  std::uint8_t* p = message.data();
  store_le32(p + kFlagsOffset, load_le32(p + kFlagsOffset) | kFlagSigned);
  std::memset(p + kSignatureOffset, 0, kSignatureSize);
  std::array<std::uint8_t, kSignatureSize> mac;
  if (const Status s = compute(message, mac); !s) {
    return s;
  }
  std::memcpy(p + kSignatureOffset, mac.data(), kSignatureSize);
  return {};
}

Status Signer::verify(std::span<std::uint8_t> message) noexcept {
  if (message.size() < kHeaderSize || !is_smb2_message(message)) {
    return Error::kMalformed;
  }
  std::uint8_t* p = message.data();
  if ((load_le32(p + kFlagsOffset) & kFlagSigned) == 0) {
    return Error::kAuthFailed;
  }
  std::array<std::uint8_t, kSignatureSize> received;
  std::memcpy(received.data(), p + kSignatureOffset, kSignatureSize);
  std::memset(p + kSignatureOffset, 0, kSignatureSize);
  std::array<std::uint8_t, kSignatureSize> expected;
  const Status s = compute(message, expected);
  std::memcpy(p + kSignatureOffset, received.data(), kSignatureSize);
  if (!s) {
    return s;
  }
  if (!detail::tag_matches(expected, received)) {
    return Error::kAuthFailed;
  }
  return {};
}

}  // namespace wireseal::smb
