// SMB2 TRANSFORM_HEADER codec (MS-SMB2 §2.2.41) and cipher properties (§2.2.3.1.2).
#include <cstring>

#include "le.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb {
namespace {

constexpr std::uint8_t kTransformProtocolId[4] = {0xFD, 'S', 'M', 'B'};

}  // namespace

const char* to_string(Cipher cipher) noexcept {
  switch (cipher) {
    case Cipher::kAes128Ccm:
      return "AES-128-CCM";
    case Cipher::kAes128Gcm:
      return "AES-128-GCM";
    case Cipher::kAes256Ccm:
      return "AES-256-CCM";
    case Cipher::kAes256Gcm:
      return "AES-256-GCM";
  }
  return "unknown";
}

std::size_t cipher_key_length(Cipher cipher) noexcept {
  return cipher == Cipher::kAes256Ccm || cipher == Cipher::kAes256Gcm ? 32 : 16;
}

std::size_t cipher_nonce_length(Cipher cipher) noexcept {
  // §2.2.41: AES_CCM_Nonce is 11 bytes, AES_GCM_Nonce 12; the rest of the 16 is reserved.
  return cipher == Cipher::kAes128Ccm || cipher == Cipher::kAes256Ccm ? 11 : 12;
}

crypto::AeadAlgorithm aead_algorithm(Cipher cipher) noexcept {
  switch (cipher) {
    case Cipher::kAes128Ccm:
      return crypto::AeadAlgorithm::kAes128Ccm;
    case Cipher::kAes256Ccm:
      return crypto::AeadAlgorithm::kAes256Ccm;
    case Cipher::kAes256Gcm:
      return crypto::AeadAlgorithm::kAes256Gcm;
    case Cipher::kAes128Gcm:
      break;
  }
  return crypto::AeadAlgorithm::kAes128Gcm;
}

bool is_transform_message(std::span<const std::uint8_t> bytes) noexcept {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), kTransformProtocolId, 4) == 0;
}

Status encode_transform_header(const TransformHeader& h, std::span<std::uint8_t> out) noexcept {
  if (out.size() < kTransformHeaderSize) {
    return Error::kBufferTooSmall;
  }
  std::uint8_t* p = out.data();
  std::memcpy(p, kTransformProtocolId, 4);
  std::memcpy(p + kTransformSignatureOffset, h.signature.data(), kTransformTagSize);
  std::memcpy(p + kTransformNonceOffset, h.nonce.data(), kTransformNonceSize);
  wire::store_le32(p + 36, h.original_message_size);
  wire::store_le16(p + 40, 0);
  wire::store_le16(p + 42, h.flags);
  wire::store_le64(p + 44, h.session_id);
  return {};
}

Result<TransformHeader> decode_transform_header(std::span<const std::uint8_t> bytes) noexcept {
  if (bytes.size() < kTransformHeaderSize || !is_transform_message(bytes)) {
    return Error::kMalformed;
  }
  const std::uint8_t* p = bytes.data();
  TransformHeader h;
  std::memcpy(h.signature.data(), p + kTransformSignatureOffset, kTransformTagSize);
  std::memcpy(h.nonce.data(), p + kTransformNonceOffset, kTransformNonceSize);
  h.original_message_size = wire::load_le32(p + 36);
  h.flags = wire::load_le16(p + 42);
  h.session_id = wire::load_le64(p + 44);
  return h;
}

}  // namespace wireseal::smb
