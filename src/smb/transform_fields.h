#pragma once
// The part of the TRANSFORM_HEADER codec that TransformSealer shares with
// encode_transform_header.
#include <cstdint>
#include <span>

#include "wireseal/smb/transform.h"

namespace wireseal::smb::detail {

// write_transform_fields writes ProtocolId, OriginalMessageSize, Reserved (0), Flags and
// SessionId into `out`, leaving Signature (the AEAD tag) and Nonce (the nonce source's) as
// they are.
void write_transform_fields(std::uint32_t original_message_size, std::uint16_t flags,
                            std::uint64_t session_id,
                            std::span<std::uint8_t, kTransformHeaderSize> out) noexcept;

}  // namespace wireseal::smb::detail
