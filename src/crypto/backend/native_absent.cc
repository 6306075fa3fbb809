// Built on targets with no native kernels yet (anything but x86-64): the native backend reports
// itself unavailable, and the kernel entry points other code links against trap if reached.
// Dispatch never calls them (their CPU features read false here); were it ever wrong, a trap
// is a crash in testing, where an empty body would silently produce a wrong MAC.
#include <stdexcept>

#include "backend/interfaces.h"
#include "backend/x86/sha1_ni.h"
#include "backend/x86/sha256_ni.h"

namespace wireseal::crypto::detail {

bool native_supports(Primitive /*primitive*/) noexcept { return false; }
bool native_uses_vaes() noexcept { return false; }

std::unique_ptr<AeadImpl> make_native_aead(AeadAlgorithm, Bytes, std::size_t, std::size_t) {
  throw std::invalid_argument("wireseal: no native backend on this target");
}
std::unique_ptr<AesModeImpl> make_native_aes_mode(AesMode, Bytes) {
  throw std::invalid_argument("wireseal: no native backend on this target");
}
std::unique_ptr<CmacImpl> make_native_cmac(Bytes) {
  throw std::invalid_argument("wireseal: no native backend on this target");
}

void sha1_compress_ni(std::uint32_t*, const std::uint8_t*, std::size_t) noexcept {
  __builtin_trap();
}
void sha1_compress_ni_x2(std::uint32_t* const*, const std::uint8_t* const*) noexcept {
  __builtin_trap();
}
void sha256_compress_ni(std::uint32_t*, const std::uint8_t*, std::size_t) noexcept {
  __builtin_trap();
}
void sha256_compress_ni_x2(std::uint32_t* const*, const std::uint8_t* const*) noexcept {
  __builtin_trap();
}

}  // namespace wireseal::crypto::detail
