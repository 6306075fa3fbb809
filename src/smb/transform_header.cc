// SMB2 TRANSFORM_HEADER codec (MS-SMB2 §2.2.41) and cipher properties (§2.2.3.1.2).
#include <cstring>
#include <iterator>

#include "common/byte_cursor.h"
#include "transform_fields.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb {
namespace {

// The codec below walks the fields in wire order: ProtocolId, Signature, Nonce,
// OriginalMessageSize (4), Reserved (2), Flags (2), SessionId (8).
static_assert(kTransformSignatureOffset == kTransformProtocolId.size());
static_assert(kTransformNonceOffset == kTransformSignatureOffset + kTransformTagSize);
static_assert(kTransformNonceOffset + kTransformNonceSize + 4 + 2 + 2 + 8 == kTransformHeaderSize);

constexpr std::uint64_t kNoncesPerKey = ~std::uint64_t{0};  // the counter's last value is refused

// §2.2.3.1.2 cipher IDs; §2.2.41: AES_CCM_Nonce is 11 bytes, AES_GCM_Nonce 12.
constexpr CipherInfo kCiphers[] = {
    {Cipher::kAes128Ccm, "AES-128-CCM", crypto::AeadAlgorithm::kAes128Ccm, 16, 11,
     kTransformTagSize, kNoncesPerKey},
    {Cipher::kAes128Gcm, "AES-128-GCM", crypto::AeadAlgorithm::kAes128Gcm, 16, 12,
     kTransformTagSize, kNoncesPerKey},
    {Cipher::kAes256Ccm, "AES-256-CCM", crypto::AeadAlgorithm::kAes256Ccm, 32, 11,
     kTransformTagSize, kNoncesPerKey},
    {Cipher::kAes256Gcm, "AES-256-GCM", crypto::AeadAlgorithm::kAes256Gcm, 32, 12,
     kTransformTagSize, kNoncesPerKey},
};

}  // namespace

const CipherInfo& info(Cipher cipher) noexcept {
  const auto index = static_cast<std::size_t>(cipher) - 1;  // the IDs are 1..4, in table order
  return index < std::size(kCiphers) ? kCiphers[index] : kCiphers[1];
}

void detail::write_transform_fields(std::uint32_t original_message_size, std::uint16_t flags,
                                    std::uint64_t session_id,
                                    std::span<std::uint8_t, kTransformHeaderSize> out) noexcept {
  ByteWriter w(out);
  w.bytes(kTransformProtocolId);
  (void)w.reserve(kTransformTagSize + kTransformNonceSize);  // Signature, Nonce: their owners'
  w.u32le(original_message_size);
  w.u16le(0);  // Reserved
  w.u16le(flags);
  w.u64le(session_id);
}

const char* to_string(Cipher cipher) noexcept { return info(cipher).name; }

bool is_transform_message(std::span<const std::uint8_t> bytes) noexcept {
  return bytes.size() >= kTransformProtocolId.size() &&
         std::memcmp(bytes.data(), kTransformProtocolId.data(), kTransformProtocolId.size()) == 0;
}

Status encode_transform_header(const TransformHeader& h, std::span<std::uint8_t> out) noexcept {
  if (out.size() < kTransformHeaderSize) {
    return Error::kBufferTooSmall;
  }
  const std::span<std::uint8_t, kTransformHeaderSize> header = out.first<kTransformHeaderSize>();
  detail::write_transform_fields(h.original_message_size, h.flags, h.session_id, header);
  std::memcpy(header.data() + kTransformSignatureOffset, h.signature.data(), kTransformTagSize);
  std::memcpy(header.data() + kTransformNonceOffset, h.nonce.data(), kTransformNonceSize);
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
