// SMB2 TRANSFORM_HEADER codec (MS-SMB2 §2.2.41) and cipher properties (§2.2.3.1.2).
#include <cstring>

#include "common/byte_cursor.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb {
namespace {

constexpr std::uint8_t kTransformProtocolId[4] = {0xFD, 'S', 'M', 'B'};

// The codec below walks the fields in wire order: ProtocolId, Signature, Nonce,
// OriginalMessageSize (4), Reserved (2), Flags (2), SessionId (8).
static_assert(kTransformSignatureOffset == sizeof(kTransformProtocolId));
static_assert(kTransformNonceOffset == kTransformSignatureOffset + kTransformTagSize);
static_assert(kTransformNonceOffset + kTransformNonceSize + 4 + 2 + 2 + 8 == kTransformHeaderSize);

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
  ByteWriter w(out.first(kTransformHeaderSize));
  w.bytes(kTransformProtocolId);
  w.bytes(h.signature);
  w.bytes(h.nonce);
  w.u32le(h.original_message_size);
  w.u16le(0);  // Reserved
  w.u16le(h.flags);
  w.u64le(h.session_id);
  return {};
}

Result<TransformHeader> decode_transform_header(std::span<const std::uint8_t> bytes) noexcept {
  if (bytes.size() < kTransformHeaderSize || !is_transform_message(bytes)) {
    return Error::kMalformed;
  }
  ByteReader r(bytes.first(kTransformHeaderSize));
  r.skip(sizeof(kTransformProtocolId));  // checked by is_transform_message
  TransformHeader h;
  r.copy_to(h.signature);
  r.copy_to(h.nonce);
  h.original_message_size = r.u32le();
  r.skip(2);  // Reserved
  h.flags = r.u16le();
  h.session_id = r.u64le();
  return h;
}

}  // namespace wireseal::smb
