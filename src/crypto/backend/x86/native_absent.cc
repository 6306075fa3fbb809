// Built on targets other than x86-64: the native backend reports itself unavailable.
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

void sha1_compress_ni(std::uint32_t*, const std::uint8_t*, std::size_t) noexcept {}
void sha1_compress_ni_x2(std::uint32_t* const*, const std::uint8_t* const*) noexcept {}
void sha256_compress_ni(std::uint32_t*, const std::uint8_t*, std::size_t) noexcept {}
void sha256_compress_ni_x2(std::uint32_t* const*, const std::uint8_t* const*) noexcept {}

}  // namespace wireseal::crypto::detail
