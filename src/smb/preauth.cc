// SMB 3.1.1 pre-authentication integrity hash (MS-SMB2 §3.2.5.2, §3.3.5.4).
#include <openssl/evp.h>

#include "wireseal/smb/keys.h"

namespace wireseal::smb {

Status PreauthHash::update(std::span<const std::uint8_t> message) noexcept {
  // Hi = SHA-512(Hi-1 || message). Set-up path only, so OpenSSL's EVP digest (which may
  // allocate a context) is acceptable here.
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) {
    return Error::kUnsupported;
  }
  unsigned int len = 0;
  const bool ok = EVP_DigestInit_ex(ctx, EVP_sha512(), nullptr) == 1 &&
                  EVP_DigestUpdate(ctx, value_.data(), value_.size()) == 1 &&
                  EVP_DigestUpdate(ctx, message.data(), message.size()) == 1 &&
                  EVP_DigestFinal_ex(ctx, value_.data(), &len) == 1 && len == value_.size();
  EVP_MD_CTX_free(ctx);
  return ok ? Status{} : Status{Error::kUnsupported};
}

}  // namespace wireseal::smb
