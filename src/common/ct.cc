#include "common/ct.h"

#include <openssl/crypto.h>

namespace wireseal::detail {

void secure_wipe(void* bytes, std::size_t len) noexcept {
  if (len != 0) {
    OPENSSL_cleanse(bytes, len);
  }
}

}  // namespace wireseal::detail
