// SMB 3.1.1 pre-authentication integrity hash (MS-SMB2 §3.2.5.2, §3.3.5.4).
#include "wireseal/crypto/hash.h"
#include "wireseal/smb/keys.h"

namespace wireseal::smb {

Status PreauthHash::update(std::span<const std::uint8_t> message) noexcept {
  // Hi = SHA-512(Hi-1 || message), on the stack.
  crypto::Hash h(crypto::HashAlgorithm::kSha512);
  h.update(value_);
  h.update(message);
  return h.finish(value_);
}

}  // namespace wireseal::smb
