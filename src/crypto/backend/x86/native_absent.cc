// Built on targets other than x86-64: the native backend reports itself unavailable.
#include <stdexcept>

#include "crypto/impl.h"

namespace wireseal::crypto::detail {

bool native_supports(Primitive /*primitive*/) noexcept { return false; }

std::unique_ptr<AeadImpl> make_native_aead(AeadAlgorithm, Bytes, std::size_t, std::size_t) {
  throw std::invalid_argument("wireseal: no native backend on this target");
}
std::unique_ptr<AesModeImpl> make_native_aes_mode(AesMode, Bytes) {
  throw std::invalid_argument("wireseal: no native backend on this target");
}
std::unique_ptr<CmacImpl> make_native_cmac(Bytes) {
  throw std::invalid_argument("wireseal: no native backend on this target");
}

}  // namespace wireseal::crypto::detail
