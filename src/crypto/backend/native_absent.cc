// backend/native.h on targets with no native kernels yet (anything but x86-64): the native
// backend serves nothing and its kernel table is empty, so no caller can reach a kernel that is
// not there (Hmac takes its compression functions from the table, never by name). The
// factories must still exist for the front ends to link; selection never calls them here
// (native_supports is false), and were it ever wrong they refuse loudly rather than return
// an object that computes nothing.
#include <stdexcept>

#include "backend/native.h"

namespace wireseal::crypto::detail {

bool native_supports(Primitive /*primitive*/) noexcept { return false; }
bool native_uses_vaes() noexcept { return false; }
bool native_cbc_stitches_sha() noexcept { return false; }
std::size_t native_gcm_batch_max() noexcept { return 0; }
const char* native_aes_name() noexcept { return "unavailable"; }

const ShaKernels& native_sha_kernels() noexcept {
  static constexpr ShaKernels kNone{};
  return kNone;
}

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
